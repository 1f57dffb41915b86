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
 * The batched consumer's set-based statements: the positions of all the batch's aggregates created,
 * locked and moved in one statement each, one multi-row inbox insert that returns which event ids
 * are new. On PostgreSQL the rows are bound as arrays ({@code unnest}), so each statement has one
 * fixed text; on MariaDB the text has one group of bind parameters per row (only the number of
 * groups varies with the batch) and the position writes are JDBC batches (one round trip with the
 * bulk protocol). Nothing is concatenated from input. Every method runs on the caller's
 * transaction.
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
    if (postgres) {
      return lockPositionsPostgres(c, consumer, keys, initial);
    }
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

  // PostgreSQL takes the batch as arrays: one fixed statement text (prepared once per connection,
  // planned cheaply) whatever the batch size, instead of hundreds of OR'd row comparisons.
  private static final String PG_POSITION_CREATE =
      """
      INSERT INTO tandem_inbox_position
          (consumer, aggregate_type, aggregate_id, last_version, start_version)
      SELECT ?, k.t, k.i, k.v, k.v FROM unnest(?::text[], ?::text[], ?::bigint[]) AS k(t, i, v)
       ORDER BY k.t, k.i
      ON CONFLICT DO NOTHING
      """;

  private static final String PG_POSITION_LOCK =
      """
      SELECT p.aggregate_type, p.aggregate_id, p.last_version
        FROM tandem_inbox_position p
        JOIN unnest(?::text[], ?::text[]) AS k(t, i)
          ON p.aggregate_type = k.t AND p.aggregate_id = k.i
       WHERE p.consumer = ?
       ORDER BY p.aggregate_type, p.aggregate_id
         FOR UPDATE OF p
      """;

  private static final String PG_INBOX_INSERT =
      """
      INSERT INTO tandem_inbox
          (consumer, event_id, aggregate_type, aggregate_id, aggregate_version, event_type)
      SELECT ?, k.e, k.t, k.i, k.v, k.y
        FROM unnest(?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::text[]) AS k(e, t, i, v, y)
      ON CONFLICT (consumer, event_id) DO NOTHING
      RETURNING event_id
      """;

  private static final String PG_POSITION_UPDATE =
      """
      UPDATE tandem_inbox_position p SET last_version = k.v, updated_at = now()
        FROM unnest(?::text[], ?::text[], ?::bigint[]) AS k(t, i, v)
       WHERE p.consumer = ? AND p.aggregate_type = k.t AND p.aggregate_id = k.i
      """;

  private static final String PG_SUCCESSORS_PARKED =
      """
      SELECT p.aggregate_type, p.aggregate_id
        FROM tandem_inbox_parked p
        JOIN unnest(?::text[], ?::text[], ?::bigint[]) AS k(t, i, v)
          ON p.aggregate_type = k.t AND p.aggregate_id = k.i AND p.aggregate_version = k.v
       WHERE p.consumer = ?
      """;

  private Map<AggregateKey, Long> lockPositionsPostgres(
      Connection c, String consumer, List<AggregateKey> keys, Map<AggregateKey, Long> initial)
      throws SQLException {
    String[] types = new String[keys.size()];
    String[] ids = new String[keys.size()];
    Long[] starts = new Long[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      types[i] = keys.get(i).type();
      ids[i] = keys.get(i).id();
      starts[i] = initial.get(keys.get(i));
    }
    try (PreparedStatement ps = c.prepareStatement(PG_POSITION_CREATE)) {
      ps.setString(1, consumer);
      ps.setArray(2, c.createArrayOf("text", types));
      ps.setArray(3, c.createArrayOf("text", ids));
      ps.setArray(4, c.createArrayOf("bigint", starts));
      ps.executeUpdate();
    }
    Map<AggregateKey, Long> positions = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(PG_POSITION_LOCK)) {
      ps.setArray(1, c.createArrayOf("text", types));
      ps.setArray(2, c.createArrayOf("text", ids));
      ps.setString(3, consumer);
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
    if (postgres) {
      try (PreparedStatement ps = c.prepareStatement(PG_POSITION_UPDATE)) {
        bindKeyVersions(c, ps, versions, 0);
        ps.setString(4, consumer);
        ps.executeUpdate();
      }
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
    if (postgres) {
      try (PreparedStatement ps = c.prepareStatement(PG_SUCCESSORS_PARKED)) {
        bindKeyVersions(c, ps, versions, 1);
        ps.setString(4, consumer);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            parked.add(new AggregateKey(rs.getString(1), rs.getString(2)));
          }
        }
      }
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

  /** Binds types, ids and versions (plus {@code offset}) as arrays to parameters 1 to 3. */
  private static void bindKeyVersions(
      Connection c, PreparedStatement ps, Map<AggregateKey, Long> versions, long offset)
      throws SQLException {
    int n = versions.size();
    String[] types = new String[n];
    String[] ids = new String[n];
    Long[] values = new Long[n];
    int i = 0;
    for (Map.Entry<AggregateKey, Long> v : versions.entrySet()) {
      types[i] = v.getKey().type();
      ids[i] = v.getKey().id();
      values[i] = v.getValue() + offset;
      i++;
    }
    ps.setArray(1, c.createArrayOf("text", types));
    ps.setArray(2, c.createArrayOf("text", ids));
    ps.setArray(3, c.createArrayOf("bigint", values));
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
