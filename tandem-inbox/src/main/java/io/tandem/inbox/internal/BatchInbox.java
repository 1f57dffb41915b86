package io.tandem.inbox.internal;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The batch's inbox records: one multi-row insert that returns which event ids are new, and the
 * removal of those whose handler was rolled back to its savepoint. PostgreSQL binds arrays; MariaDB
 * one group of parameters per row. Every method runs on the caller's transaction.
 */
public final class BatchInbox {
  private final boolean postgres;

  public BatchInbox(Dialect dialect) {
    this.postgres = !"mariadb".equals(dialect.name());
  }

  private static final String PG_INBOX_INSERT =
      """
      INSERT INTO tandem_inbox
          (consumer, event_id, aggregate_type, aggregate_id, aggregate_version, event_type)
      SELECT ?, k.e, k.t, k.i, k.v, k.y
        FROM unnest(?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::text[]) AS k(e, t, i, v, y)
      ON CONFLICT (consumer, event_id) DO NOTHING
      RETURNING event_id
      """;

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
    if (postgres) {
      int n = events.size();
      UUID[] eventIds = new UUID[n];
      String[] types = new String[n];
      String[] ids = new String[n];
      Long[] versions = new Long[n];
      String[] eventTypes = new String[n];
      for (int i = 0; i < n; i++) {
        Event e = events.get(i);
        eventIds[i] = e.eventId();
        types[i] = e.aggregateType();
        ids[i] = e.aggregateId();
        versions[i] = e.aggregateVersion();
        eventTypes[i] = e.eventType();
      }
      try (PreparedStatement ps = c.prepareStatement(PG_INBOX_INSERT)) {
        ps.setString(1, consumer);
        ps.setArray(2, c.createArrayOf("uuid", eventIds));
        ps.setArray(3, c.createArrayOf("text", types));
        ps.setArray(4, c.createArrayOf("text", ids));
        ps.setArray(5, c.createArrayOf("bigint", versions));
        ps.setArray(6, c.createArrayOf("text", eventTypes));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            fresh.add(UUID.fromString(rs.getString(1)));
          }
        }
      }
      return fresh;
    }
    String sql =
        PlaceholderRows.of(
            (postgres ? "INSERT INTO" : "INSERT IGNORE INTO")
                + " tandem_inbox (consumer, event_id, aggregate_type, aggregate_id,"
                + " aggregate_version, event_type) VALUES ",
            events.size(),
            "(?, ?, ?, ?, ?, ?)",
            (postgres ? " ON CONFLICT (consumer, event_id) DO NOTHING" : "")
                + " RETURNING event_id");
    try (PreparedStatement ps = c.prepareStatement(sql)) {
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
}
