package io.tandem.outbox.internal;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.EventLimits;
import io.tandem.core.internal.Json;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** The relay's database side: claim, mark, retry and quarantine, each a short transaction. */
public final class OutboxStore {
  private static final int MAX_ERROR_LENGTH = 2000;
  // Rows already in the outbox were validated when appended; read them back without re-applying
  // the (possibly lower) limits of this process.
  private static final EventLimits READ_LIMITS =
      EventLimits.builder()
          .maxPayloadBytes(Integer.MAX_VALUE)
          .maxHeadersBytes(Integer.MAX_VALUE)
          .maxNameLength(Integer.MAX_VALUE)
          .build();

  private final DataSource dataSource;
  private final Dialect dialect;

  public OutboxStore(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /** Claims up to {@code batchSize} due events for {@code relayId}, ordered by row id. */
  public List<ClaimedEvent> claim(String relayId, int batchSize, Duration lease) {
    try {
      return Transactions.inTransaction(
          dataSource,
          conn -> {
            List<ClaimedEvent> claimed = new ArrayList<>(batchSize);
            try (PreparedStatement ps = conn.prepareStatement(dialect.outboxClaim())) {
              ps.setInt(1, batchSize);
              ps.setString(2, relayId);
              ps.setLong(3, lease.toMillis());
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  claimed.add(read(rs));
                }
              }
            }
            claimed.sort(Comparator.comparingLong(ClaimedEvent::rowId));
            return claimed;
          });
    } catch (SQLException e) {
      throw new JdbcException("claiming outbox events failed", e);
    }
  }

  private static ClaimedEvent read(ResultSet rs) throws SQLException {
    Event event =
        Event.builder()
            .limits(READ_LIMITS)
            .eventId(rs.getObject("event_id", UUID.class))
            .aggregate(
                rs.getString("aggregate_type"),
                rs.getString("aggregate_id"),
                rs.getLong("aggregate_version"))
            .eventType(rs.getString("event_type"))
            .schemaVersion(rs.getInt("schema_version"))
            .payload(rs.getString("payload"))
            .headers(EventHeaders.of(Json.readStringMap(rs.getString("headers"))))
            .occurredAt(rs.getTimestamp("occurred_at").toInstant())
            .build();
    return new ClaimedEvent(rs.getLong("id"), event, rs.getInt("attempts"));
  }

  /**
   * Records the outcome of one published batch in one transaction.
   *
   * @return how many acknowledged rows were marked (fewer than acknowledged when a lease moved on)
   */
  public int record(String relayId, List<Long> acknowledged, List<Failure> failures) {
    try {
      return Transactions.inTransaction(
          dataSource,
          conn -> {
            int marked = acknowledged.isEmpty() ? 0 : markPublished(conn, relayId, acknowledged);
            for (Failure f : failures) {
              fail(conn, relayId, f);
            }
            return marked;
          });
    } catch (SQLException e) {
      throw new JdbcException("recording publish results failed", e);
    }
  }

  private int markPublished(Connection conn, String relayId, List<Long> rowIds)
      throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(dialect.outboxMarkPublished())) {
      Array ids = conn.createArrayOf("bigint", rowIds.toArray());
      ps.setString(1, relayId);
      ps.setArray(2, ids);
      return ps.executeUpdate();
    }
  }

  private void fail(Connection conn, String relayId, Failure f) throws SQLException {
    String error = truncate(f.error());
    if (f.quarantine()) {
      try (PreparedStatement ps = conn.prepareStatement(dialect.outboxQuarantine())) {
        ps.setString(1, error);
        ps.setString(2, f.errorClass().name());
        ps.setLong(3, f.rowId());
        ps.setString(4, relayId);
        ps.executeUpdate();
      }
    } else {
      try (PreparedStatement ps = conn.prepareStatement(dialect.outboxRetryLater())) {
        ps.setLong(1, f.retryDelay().toMillis());
        ps.setString(2, error);
        ps.setString(3, f.errorClass().name());
        ps.setLong(4, f.rowId());
        ps.setString(5, relayId);
        ps.executeUpdate();
      }
    }
  }

  private static String truncate(String s) {
    if (s == null) {
      return null;
    }
    return s.length() <= MAX_ERROR_LENGTH ? s : s.substring(0, MAX_ERROR_LENGTH);
  }

  /** A failed publish: retry after {@code retryDelay}, or quarantine. */
  public record Failure(
      long rowId, ErrorClass errorClass, String error, boolean quarantine, Duration retryDelay) {}
}
