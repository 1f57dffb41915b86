package io.tandem.inbox.internal;

import io.tandem.inbox.InboxAdvance;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Operator advances of a position, recorded in {@code tandem_inbox_advance}. Every method runs on
 * the caller's connection and transaction; the SQL is the dialect's.
 */
public final class AdvanceStore {
  private final Dialect dialect;

  public AdvanceStore(Dialect dialect) {
    this.dialect = dialect;
  }

  /** Records an operator's advance of a position; returns its id. */
  public long insertAdvance(
      Connection c,
      String consumer,
      String type,
      String id,
      long from,
      long to,
      String reason,
      String advancedBy)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.advanceInsert(), new String[] {"id"})) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      ps.setLong(4, from);
      ps.setLong(5, to);
      ps.setString(6, reason);
      ps.setString(7, advancedBy);
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        if (!keys.next()) {
          throw new SQLException("the advance record's insert returned no id");
        }
        return keys.getLong(1);
      }
    }
  }

  /** A consumer's advances after {@code afterId}, oldest first. */
  public List<InboxAdvance> listAdvances(Connection c, String consumer, long afterId, int limit)
      throws SQLException {
    List<InboxAdvance> advances = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.advanceList())) {
      ps.setString(1, consumer);
      ps.setLong(2, afterId);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          advances.add(
              new InboxAdvance(
                  rs.getLong("id"),
                  rs.getString("consumer"),
                  rs.getString("aggregate_type"),
                  rs.getString("aggregate_id"),
                  rs.getLong("from_version"),
                  rs.getLong("to_version"),
                  rs.getString("reason"),
                  rs.getString("advanced_by"),
                  dialect.readInstant(rs, "advanced_at")));
        }
      }
    }
    return advances;
  }
}
