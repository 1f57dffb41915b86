package io.tandem.inbox.internal;

import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The positions of all of a batch's aggregates locked (the missing ones created) and moved, each in
 * one statement: a batch whose aggregates have positions costs one round trip to lock them and one
 * to move them and learn which have their next version parked. On PostgreSQL the rows are bound as
 * arrays ({@code unnest}), so each statement has one fixed text; on MariaDB the text has one group
 * of bind parameters per row (only the number of groups varies). Nothing is concatenated from
 * input. Every method runs on the caller's transaction.
 */
public final class BatchPositions {
  private final boolean postgres;

  public BatchPositions(Dialect dialect) {
    this.postgres = !"mariadb".equals(dialect.name());
  }

  // PostgreSQL takes the batch as arrays: one fixed statement text (prepared once per connection,
  // planned cheaply) whatever the batch size, instead of hundreds of OR'd row comparisons.
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

  private static final String PG_POSITION_CREATE =
      """
      INSERT INTO tandem_inbox_position
          (consumer, aggregate_type, aggregate_id, last_version, start_version)
      SELECT ?, k.t, k.i, k.v, k.v FROM unnest(?::text[], ?::text[], ?::bigint[]) AS k(t, i, v)
       ORDER BY k.t, k.i
      ON CONFLICT DO NOTHING
      RETURNING aggregate_type, aggregate_id
      """;

  // The parked check reads in the statement's snapshot, taken after the positions were locked: it
  // sees every event parked by whoever held a lock before.
  private static final String PG_POSITION_MOVE =
      """
      WITH moved AS (
        UPDATE tandem_inbox_position p SET last_version = k.v, updated_at = now()
          FROM unnest(?::text[], ?::text[], ?::bigint[]) AS k(t, i, v)
         WHERE p.consumer = ? AND p.aggregate_type = k.t AND p.aggregate_id = k.i
        RETURNING p.consumer, p.aggregate_type, p.aggregate_id, p.last_version)
      SELECT m.aggregate_type, m.aggregate_id,
             EXISTS (SELECT 1 FROM tandem_inbox_parked q
                      WHERE q.consumer = m.consumer AND q.aggregate_type = m.aggregate_type
                        AND q.aggregate_id = m.aggregate_id
                        AND q.aggregate_version = m.last_version + 1)
        FROM moved m
      """;

  // MariaDB: the text around one group of placeholders per row.
  private static final String MARIADB_POSITION_LOCK =
      "SELECT aggregate_type, aggregate_id, last_version FROM tandem_inbox_position"
          + " WHERE consumer = ? AND (aggregate_type, aggregate_id) IN (";
  private static final String MARIADB_POSITION_LOCK_END =
      ") ORDER BY aggregate_type, aggregate_id FOR UPDATE";

  private static final String MARIADB_POSITION_CREATE =
      "INSERT IGNORE INTO tandem_inbox_position"
          + " (consumer, aggregate_type, aggregate_id, last_version, start_version) VALUES ";
  private static final String MARIADB_POSITION_CREATE_END =
      " RETURNING aggregate_type, aggregate_id";

  // MariaDB's UPDATE returns no rows, its INSERT does: the positions are locked (they exist), so
  // every row takes the ON DUPLICATE KEY UPDATE branch, and RETURNING shows the moved row.
  private static final String MARIADB_POSITION_MOVE =
      "INSERT INTO tandem_inbox_position"
          + " (consumer, aggregate_type, aggregate_id, last_version, start_version) VALUES ";
  private static final String MARIADB_POSITION_MOVE_END =
      " ON DUPLICATE KEY UPDATE last_version = VALUES(last_version),"
          + " updated_at = UTC_TIMESTAMP(6)"
          + " RETURNING aggregate_type, aggregate_id, EXISTS (SELECT 1 FROM tandem_inbox_parked q"
          + " WHERE q.consumer = tandem_inbox_position.consumer"
          + " AND q.aggregate_type = tandem_inbox_position.aggregate_type"
          + " AND q.aggregate_id = tandem_inbox_position.aggregate_id"
          + " AND q.aggregate_version = tandem_inbox_position.last_version + 1)";

  /**
   * Locks the positions of the batch's aggregates in key order and creates the missing ones (at
   * {@code initial} of each aggregate), returning each one's last applied version. One round trip
   * when every position exists, two when some are new (three when another consumer instance created
   * one of those meanwhile).
   */
  public Map<AggregateKey, Long> lockPositions(
      Connection c, String consumer, Map<AggregateKey, Long> initial) throws SQLException {
    List<AggregateKey> keys = initial.keySet().stream().sorted().toList();
    Map<AggregateKey, Long> positions = lock(c, consumer, keys);
    if (positions.size() < keys.size()) {
      // Created after the existing ones were locked, so not in key order with them: two consumer
      // instances creating the same aggregates at once may deadlock, which is retried.
      List<AggregateKey> missing = keys.stream().filter(k -> !positions.containsKey(k)).toList();
      Set<AggregateKey> created = create(c, consumer, missing, initial);
      created.forEach(k -> positions.put(k, initial.get(k)));
      List<AggregateKey> raced = missing.stream().filter(k -> !created.contains(k)).toList();
      if (!raced.isEmpty()) {
        positions.putAll(lock(c, consumer, raced));
      }
    }
    if (positions.size() != keys.size()) {
      throw new SQLException(
          "locked " + positions.size() + " of " + keys.size() + " positions right after creating");
    }
    return positions;
  }

  private Map<AggregateKey, Long> lock(Connection c, String consumer, List<AggregateKey> keys)
      throws SQLException {
    Map<AggregateKey, Long> positions = new HashMap<>();
    String sql =
        postgres
            ? PG_POSITION_LOCK
            : PlaceholderRows.of(
                MARIADB_POSITION_LOCK, keys.size(), "(?, ?)", MARIADB_POSITION_LOCK_END);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (postgres) {
        ps.setArray(1, c.createArrayOf("text", types(keys)));
        ps.setArray(2, c.createArrayOf("text", ids(keys)));
        ps.setString(3, consumer);
      } else {
        int i = 1;
        ps.setString(i++, consumer);
        for (AggregateKey k : keys) {
          ps.setString(i++, k.type());
          ps.setString(i++, k.id());
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          positions.put(new AggregateKey(rs.getString(1), rs.getString(2)), rs.getLong(3));
        }
      }
    }
    return positions;
  }

  /** Creates the positions of {@code keys} where none exists; returns those it created. */
  private Set<AggregateKey> create(
      Connection c, String consumer, List<AggregateKey> keys, Map<AggregateKey, Long> initial)
      throws SQLException {
    Set<AggregateKey> created = new HashSet<>();
    String sql =
        postgres
            ? PG_POSITION_CREATE
            : PlaceholderRows.of(
                MARIADB_POSITION_CREATE, keys.size(), ROW, MARIADB_POSITION_CREATE_END);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (postgres) {
        ps.setString(1, consumer);
      }
      bindKeys(c, ps, 2, consumer, keys, initial);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          created.add(new AggregateKey(rs.getString(1), rs.getString(2)));
        }
      }
    }
    return created;
  }

  /**
   * Moves the locked positions to the given versions and returns the aggregates whose next version
   * waits in the parking: one statement, one round trip.
   */
  public Set<AggregateKey> move(Connection c, String consumer, Map<AggregateKey, Long> versions)
      throws SQLException {
    Set<AggregateKey> parked = new HashSet<>();
    if (versions.isEmpty()) {
      return parked;
    }
    List<AggregateKey> keys = new ArrayList<>(versions.keySet());
    String sql =
        postgres
            ? PG_POSITION_MOVE
            : PlaceholderRows.of(
                MARIADB_POSITION_MOVE, keys.size(), ROW, MARIADB_POSITION_MOVE_END);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      // MariaDB: start_version of a row never inserted (every position is locked, so it exists)
      bindKeys(c, ps, 1, consumer, keys, versions);
      if (postgres) {
        ps.setString(4, consumer);
      }
      int rows = 0;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows++;
          if (rs.getBoolean(3)) {
            parked.add(new AggregateKey(rs.getString(1), rs.getString(2)));
          }
        }
      }
      if (rows != keys.size()) {
        throw new SQLException("moved " + rows + " of " + keys.size() + " positions");
      }
    }
    return parked;
  }

  /**
   * Binds each key with its value: on PostgreSQL as three arrays (types, ids, values) from
   * parameter {@code firstArray}, on MariaDB as one row (consumer, type, id, value, value) per key
   * from the first parameter.
   */
  private void bindKeys(
      Connection c,
      PreparedStatement ps,
      int firstArray,
      String consumer,
      List<AggregateKey> keys,
      Map<AggregateKey, Long> values)
      throws SQLException {
    if (postgres) {
      Long[] v = keys.stream().map(values::get).toArray(Long[]::new);
      ps.setArray(firstArray, c.createArrayOf("text", types(keys)));
      ps.setArray(firstArray + 1, c.createArrayOf("text", ids(keys)));
      ps.setArray(firstArray + 2, c.createArrayOf("bigint", v));
      return;
    }
    int i = 1;
    for (AggregateKey k : keys) {
      ps.setString(i++, consumer);
      ps.setString(i++, k.type());
      ps.setString(i++, k.id());
      ps.setLong(i++, values.get(k));
      ps.setLong(i++, values.get(k));
    }
  }

  private static String[] types(List<AggregateKey> keys) {
    return keys.stream().map(AggregateKey::type).toArray(String[]::new);
  }

  private static String[] ids(List<AggregateKey> keys) {
    return keys.stream().map(AggregateKey::id).toArray(String[]::new);
  }

  private static final String ROW = "(?, ?, ?, ?, ?)";
}
