package io.tandem.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * MariaDB 10.6 and later, and MySQL 8 (both have {@code SKIP LOCKED} and {@code JSON_TABLE}).
 *
 * <p>Differences from {@link PostgresDialect}; callers see them only through {@link #bindList},
 * {@link #bindInstant}, {@link #readInstant} and {@link #relayIsolation}:
 *
 * <ul>
 *   <li><b>Lists</b> bind as one JSON array (MariaDB has no arrays), read back with {@code
 *       JSON_TABLE(?, '$[*]' COLUMNS (v BIGINT PATH '$'))}.
 *   <li><b>Time</b>: timestamp columns are {@code DATETIME(6)} holding UTC. The database's clock is
 *       always {@code UTC_TIMESTAMP(6)}, never {@code NOW()}, and {@link #bindInstant} / {@link
 *       #readInstant} exchange UTC wall time as {@link LocalDateTime}, which the driver passes
 *       verbatim: exact whatever the JVM's and the session's time zones, across daylight-saving
 *       changes included. Reading a timestamp column with {@code getTimestamp} instead would
 *       interpret the UTC wall time in the JVM's zone.
 *   <li><b>Event ids</b> are {@code CHAR(36)} text; the MariaDB driver binds {@link java.util.UUID}
 *       with {@code setObject} and reads it with {@code getObject(column, UUID.class)}.
 *   <li><b>No {@code ON CONFLICT}</b>: the inbox uses {@code INSERT IGNORE}, which, like {@code ON
 *       CONFLICT DO NOTHING}, waits for a concurrent insert of the same key and affects no row when
 *       it committed. The heartbeat uses {@code ON DUPLICATE KEY UPDATE}.
 *   <li><b>Multi-table {@code UPDATE}</b> marks published rows, takes and releases partitions,
 *       driven by the bound list (a single-table {@code UPDATE ... WHERE id IN (subquery)} reads,
 *       and locks, the whole table before MariaDB 11.1). Marking reads the partition rows with
 *       shared locks, so fencing against a concurrent takeover is by lock as well as by epoch.
 *   <li><b>Isolation</b>: the relay's own transactions run at READ COMMITTED ({@link
 *       #relayIsolation()}), as on PostgreSQL, instead of MariaDB's REPEATABLE READ default.
 *   <li><b>No LISTEN/NOTIFY</b>: the relay polls.
 * </ul>
 *
 * <p>Choose the database with the JDBC URL, e.g. {@code
 * jdbc:mariadb://db:3306/orders?user=app&password=...}.
 */
public final class MariaDbDialect implements Dialect {
  public static final MariaDbDialect INSTANCE = new MariaDbDialect();

  // MariaDB's duplicate-key errors: ER_DUP_KEY, ER_DUP_ENTRY, ER_DUP_ENTRY_WITH_KEY_NAME.
  private static final int ER_DUP_KEY = 1022;
  private static final int ER_DUP_ENTRY = 1062;
  private static final int ER_DUP_ENTRY_WITH_KEY_NAME = 1586;

  // INSERT IGNORE also downgrades other errors (truncation, NOT NULL) to warnings; V2__inbox.sql
  // gives the table no column or constraint such a row could meet.
  private static final String POSITION_CREATE =
      """
      INSERT IGNORE INTO tandem_inbox_position
          (consumer, aggregate_type, aggregate_id, last_version, start_version)
      VALUES (?, ?, ?, ?, ?)
      """;

  private static final String POSITION_UPDATE =
      """
      UPDATE tandem_inbox_position SET last_version = ?, updated_at = UTC_TIMESTAMP(6)
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?
      """;

  private static final String PARKED_INSERT =
      """
      INSERT IGNORE INTO tandem_inbox_parked
          (consumer, aggregate_type, aggregate_id, aggregate_version, event_id, event_type,
           schema_version, payload, headers, occurred_at, origin)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  private static final String PARKED_GAPS =
      """
      SELECT p.aggregate_type, p.aggregate_id, pos.last_version,
             min(p.aggregate_version) AS first_parked, count(*) AS parked,
             min(p.parked_at) AS oldest_parked_at,
             TIMESTAMPDIFF(MICROSECOND, min(p.parked_at), UTC_TIMESTAMP(6)) DIV 1000 AS waiting_ms
        FROM tandem_inbox_parked p
        LEFT JOIN tandem_inbox_position pos
          ON pos.consumer = p.consumer AND pos.aggregate_type = p.aggregate_type
         AND pos.aggregate_id = p.aggregate_id
       WHERE p.consumer = ?
         -- a row at or below the position was applied and awaits the drain's delete: no gap
         AND (pos.last_version IS NULL OR p.aggregate_version > pos.last_version)
       GROUP BY p.aggregate_type, p.aggregate_id, pos.last_version
      HAVING min(p.parked_at) <= UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
       ORDER BY min(p.parked_at)
       LIMIT ?
      """;

  private static final String PARKED_SUMMARY =
      """
      SELECT count(*) AS parked,
             TIMESTAMPDIFF(MICROSECOND, min(parked_at), UTC_TIMESTAMP(6)) DIV 1000 AS oldest_ms
        FROM tandem_inbox_parked
       WHERE consumer = ?
      """;

  private static final String DEAD_LETTER_INSERT =
      """
      INSERT INTO tandem_dead_letter
          (consumer, reason_class, reason, attempts, origin, raw_headers, raw_body, event_id,
           aggregate_type, aggregate_id, aggregate_version, event_type, event_json)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  private static final String DEAD_LETTER_RESOLVE =
      """
      UPDATE tandem_dead_letter SET status = ?, resolved_at = UTC_TIMESTAMP(6)
       WHERE id = ? AND status = 'DEAD'
      """;

  private static final String INBOX_RETENTION_COUNT =
      """
      SELECT count(*) AS count FROM tandem_inbox
       WHERE processed_at < UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
      """;

  // A single-table DELETE takes ORDER BY and LIMIT itself (see RETENTION_DELETE).
  private static final String INBOX_RETENTION_DELETE =
      """
      DELETE FROM tandem_inbox
       WHERE processed_at < UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
       ORDER BY processed_at
       LIMIT ?
      """;

  private static final String INBOX_INSERT =
      """
      INSERT IGNORE INTO tandem_inbox
          (consumer, event_id, aggregate_type, aggregate_id, aggregate_version, event_type)
      VALUES (?, ?, ?, ?, ?, ?)
      """;

  private final OutboxStatements outbox = new OutboxStatements(this, MariaDbRelaySql.OUTBOX);
  private final OperationStatements operations = new OperationStatements(MariaDbOperationsSql.SQL);
  private final LeaseStatements leases = new LeaseStatements(this, MariaDbRelaySql.LEASES);

  private MariaDbDialect() {}

  @Override
  public OutboxStatements outbox() {
    return outbox;
  }

  @Override
  public LeaseStatements leases() {
    return leases;
  }

  @Override
  public OperationStatements operations() {
    return operations;
  }

  @Override
  public String name() {
    return "mariadb";
  }

  /**
   * READ COMMITTED, not MariaDB's default REPEATABLE READ: there an update locks every row it scans
   * and the gaps between index entries, so that relays renewing, taking and purging at the same
   * time deadlock one another.
   */
  @Override
  public OptionalInt relayIsolation() {
    return OptionalInt.of(Connection.TRANSACTION_READ_COMMITTED);
  }

  /** Binds the values as one JSON array of numbers, e.g. {@code [3,17,42]}. */
  @Override
  public void bindList(
      Connection connection, PreparedStatement ps, int index, Collection<? extends Number> values)
      throws SQLException {
    ps.setString(
        index,
        values.stream()
            .map(v -> Long.toString(v.longValue()))
            .collect(Collectors.joining(",", "[", "]")));
  }

  /** Binds the instant as UTC wall time ({@link LocalDateTime}, passed verbatim by the driver). */
  @Override
  public void bindInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.TIMESTAMP);
    } else {
      ps.setObject(index, LocalDateTime.ofInstant(value, ZoneOffset.UTC));
    }
  }

  /** Reads a {@code DATETIME(6)} column holding UTC wall time. */
  @Override
  public Instant readInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime utc = rs.getObject(column, LocalDateTime.class);
    return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
  }

  @Override
  public String inboxInsert() {
    return INBOX_INSERT;
  }

  @Override
  public String positionCreate() {
    return POSITION_CREATE;
  }

  @Override
  public String positionUpdate() {
    return POSITION_UPDATE;
  }

  @Override
  public String parkedInsert() {
    return PARKED_INSERT;
  }

  @Override
  public String parkedGaps() {
    return PARKED_GAPS;
  }

  @Override
  public String parkedSummary() {
    return PARKED_SUMMARY;
  }

  @Override
  public String deadLetterInsert() {
    return DEAD_LETTER_INSERT;
  }

  @Override
  public String deadLetterResolve() {
    return DEAD_LETTER_RESOLVE;
  }

  @Override
  public String inboxRetentionCount() {
    return INBOX_RETENTION_COUNT;
  }

  @Override
  public String inboxRetentionDelete() {
    return INBOX_RETENTION_DELETE;
  }

  @Override
  public boolean isUniqueViolation(SQLException e) {
    int code = e.getErrorCode();
    return "23000".equals(e.getSQLState())
        && (code == ER_DUP_ENTRY || code == ER_DUP_ENTRY_WITH_KEY_NAME || code == ER_DUP_KEY);
  }
}
