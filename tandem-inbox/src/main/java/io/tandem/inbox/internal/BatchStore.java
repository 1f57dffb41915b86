package io.tandem.inbox.internal;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The batched consumer's set-based statements: one round trip for the positions of all the batch's
 * aggregates, one multi-row inbox insert that returns which event ids are new. The statements are
 * fixed text with one group of bind parameters per row (only the number of groups varies with the
 * batch); nothing is concatenated from input. Every method runs on the caller's transaction.
 */
public final class BatchStore {
  /** An aggregate of the batch: its type and id. */
  public record AggregateKey(String type, String id) implements Comparable<AggregateKey> {
    @Override
    public int compareTo(AggregateKey o) {
      int byType = type.compareTo(o.type);
      return byType != 0 ? byType : id.compareTo(o.id);
    }
  }

  private final Dialect dialect;
  private final boolean postgres;

  public BatchStore(Dialect dialect) {
    this.dialect = dialect;
    this.postgres = !"mariadb".equals(dialect.name());
  }

  /**
   * Creates the missing positions (at {@code initial} of each aggregate) and locks all of them, in
   * key order, returning each one's last applied version. Two round trips whatever the batch size.
   */
  public Map<AggregateKey, Long> lockPositions(
      Connection c, String consumer, Map<AggregateKey, Long> initial) throws SQLException {
    List<AggregateKey> keys = initial.keySet().stream().sorted().toList();
    // Created first (a no-op where it exists), then locked by primary key: a locking read of an
    // absent row would take a gap lock on MariaDB. A JDBC batch is one round trip on both drivers.
    try (PreparedStatement ps = c.prepareStatement(dialect.positionCreate())) {
      for (AggregateKey k : keys) {
        ps.setString(1, consumer);
        ps.setString(2, k.type());
        ps.setString(3, k.id());
        ps.setLong(4, initial.get(k));
        ps.setLong(5, initial.get(k));
        ps.addBatch();
      }
      ps.executeBatch();
    }
    StringBuilder sql =
        new StringBuilder(
            "SELECT aggregate_type, aggregate_id, last_version FROM tandem_inbox_position"
                + " WHERE consumer = ? AND (aggregate_type, aggregate_id) IN (");
    groups(sql, keys.size(), "(?, ?)");
    sql.append(") ORDER BY aggregate_type, aggregate_id FOR UPDATE");
    Map<AggregateKey, Long> positions = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int i = 1;
      ps.setString(i++, consumer);
      for (AggregateKey k : keys) {
        ps.setString(i++, k.type());
        ps.setString(i++, k.id());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          positions.put(new AggregateKey(rs.getString(1), rs.getString(2)), rs.getLong(3));
        }
      }
    }
    if (positions.size() != keys.size()) {
      throw new SQLException(
          "locked " + positions.size() + " of " + keys.size() + " positions right after creating");
    }
    return positions;
  }

  /**
   * Inserts the inbox records of {@code events} in one statement and returns the ids that were new
   * (PostgreSQL: {@code ON CONFLICT DO NOTHING RETURNING}; MariaDB: {@code INSERT IGNORE ...
   * RETURNING}, which returns only the rows it inserted).
   */
  public Set<UUID> recordProcessed(Connection c, String consumer, List<Event> events)
      throws SQLException {
    Set<UUID> fresh = new HashSet<>();
    if (events.isEmpty()) {
      return fresh;
    }
    StringBuilder sql = new StringBuilder(postgres ? "INSERT INTO" : "INSERT IGNORE INTO");
    sql.append(
        " tandem_inbox (consumer, event_id, aggregate_type, aggregate_id, aggregate_version,"
            + " event_type) VALUES ");
    groups(sql, events.size(), "(?, ?, ?, ?, ?, ?)");
    if (postgres) {
      sql.append(" ON CONFLICT (consumer, event_id) DO NOTHING");
    }
    sql.append(" RETURNING event_id");
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int i = 1;
      for (Event e : events) {
        ps.setString(i++, consumer);
        ps.setObject(i++, e.eventId());
        ps.setString(i++, e.aggregateType());
        ps.setString(i++, e.aggregateId());
        ps.setLong(i++, e.aggregateVersion());
        ps.setString(i++, e.eventType());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          fresh.add(UUID.fromString(rs.getString(1)));
        }
      }
    }
    return fresh;
  }

  /** Removes inbox records of events whose handler was rolled back to its savepoint. */
  public void forget(Connection c, String consumer, Collection<UUID> eventIds) throws SQLException {
    if (eventIds.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM tandem_inbox WHERE consumer = ? AND event_id = ?")) {
      for (UUID id : eventIds) {
        ps.setString(1, consumer);
        ps.setObject(2, id);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Moves the positions to the given versions: one JDBC batch, one round trip. */
  public void updatePositions(Connection c, String consumer, Map<AggregateKey, Long> versions)
      throws SQLException {
    if (versions.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(dialect.positionUpdate())) {
      for (Map.Entry<AggregateKey, Long> v : versions.entrySet()) {
        ps.setLong(1, v.getValue());
        ps.setString(2, consumer);
        ps.setString(3, v.getKey().type());
        ps.setString(4, v.getKey().id());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Of the aggregates at the given versions, those whose next version waits in the parking. */
  public Set<AggregateKey> successorsParked(
      Connection c, String consumer, Map<AggregateKey, Long> versions) throws SQLException {
    Set<AggregateKey> parked = new HashSet<>();
    if (versions.isEmpty()) {
      return parked;
    }
    StringBuilder sql =
        new StringBuilder(
            "SELECT aggregate_type, aggregate_id FROM tandem_inbox_parked WHERE consumer = ?"
                + " AND (aggregate_type, aggregate_id, aggregate_version) IN (");
    groups(sql, versions.size(), "(?, ?, ?)");
    sql.append(")");
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int i = 1;
      ps.setString(i++, consumer);
      for (Map.Entry<AggregateKey, Long> v : versions.entrySet()) {
        ps.setString(i++, v.getKey().type());
        ps.setString(i++, v.getKey().id());
        ps.setLong(i++, v.getValue() + 1);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          parked.add(new AggregateKey(rs.getString(1), rs.getString(2)));
        }
      }
    }
    return parked;
  }

  private static void groups(StringBuilder sql, int count, String group) {
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        sql.append(", ");
      }
      sql.append(group);
    }
  }
}
