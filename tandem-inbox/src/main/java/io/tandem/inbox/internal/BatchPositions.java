package io.tandem.inbox.internal;

import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The positions of all of a batch's aggregates created, locked and moved in one statement each, and
 * the one statement that tells which aggregates have their next version parked. On PostgreSQL the
 * rows are bound as arrays ({@code unnest}), so each statement has one fixed text; on MariaDB the
 * text has one group of bind parameters per row (only the number of groups varies) and the writes
 * are JDBC batches. Nothing is concatenated from input. Every method runs on the caller's
 * transaction.
 */
public final class BatchPositions {
  private final Dialect dialect;
  private final boolean postgres;

  public BatchPositions(Dialect dialect) {
    this.dialect = dialect;
    this.postgres = !"mariadb".equals(dialect.name());
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
