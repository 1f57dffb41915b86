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

  private static final String INSERT =
      """
      INSERT INTO tandem_outbox
          (event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
           schema_version, payload, headers, occurred_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  // See PostgresDialect: a row may go when no earlier version of its aggregate is still
  // unpublished in a state that must go first. The pending rows are read through the index
  // tandem_outbox_pending (published_at, quarantined_at, skipped_at, id), in id order.
  private static final String CLAIM =
      """
      SELECT o.id, o.event_id, o.aggregate_type, o.aggregate_id, o.aggregate_version,
             o.event_type, o.schema_version, o.payload, o.headers, o.occurred_at, o.attempts,
             o.partition_no
        FROM tandem_outbox o
       WHERE o.partition_no IN (
                 SELECT v FROM JSON_TABLE(?, '$[*]' COLUMNS (v INT PATH '$')) AS mine)
         AND o.id > ?
         AND o.published_at IS NULL AND o.quarantined_at IS NULL AND o.skipped_at IS NULL
         AND o.next_attempt_at <= UTC_TIMESTAMP(6)
         AND NOT EXISTS (
             SELECT 1 FROM tandem_outbox p
              WHERE p.aggregate_type = o.aggregate_type AND p.aggregate_id = o.aggregate_id
                AND p.aggregate_version < o.aggregate_version
                AND p.published_at IS NULL AND p.skipped_at IS NULL
                AND (p.quarantined_at IS NOT NULL OR p.next_attempt_at > UTC_TIMESTAMP(6)
                     OR p.id > o.id OR p.id <= ?))
       ORDER BY o.id
       LIMIT ?
      """;

  private static final String OWNED =
      """
      EXISTS (SELECT 1 FROM tandem_relay_partition p
               WHERE p.partition_no = o.partition_no AND p.owner = ? AND p.epoch = ?
                 AND p.lease_until > UTC_TIMESTAMP(6))
      """;

  // The parameters must come in the documented order, but a multi-table UPDATE names its tables
  // before SET: the first parameter (published_by) is therefore read through a one-row derived
  // table, and the partitions and epochs are paired by their position in the two lists.
  private static final String MARK_PUBLISHED =
      """
      UPDATE (SELECT CAST(? AS CHAR(255)) AS relay_id) AS arg
        JOIN JSON_TABLE(?, '$[*]' COLUMNS (i FOR ORDINALITY, partition_no INT PATH '$')) AS mp
        JOIN JSON_TABLE(?, '$[*]' COLUMNS (i FOR ORDINALITY, epoch BIGINT PATH '$')) AS me
          ON me.i = mp.i
        JOIN JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS ids
        JOIN tandem_outbox o ON o.id = ids.id AND o.partition_no = mp.partition_no
        JOIN tandem_relay_partition p ON p.partition_no = mp.partition_no AND p.epoch = me.epoch
         SET o.published_at = UTC_TIMESTAMP(6), o.published_by = arg.relay_id,
             o.attempts = o.attempts + 1, o.last_error = NULL, o.error_class = NULL
       WHERE o.published_at IS NULL AND p.owner = ? AND p.lease_until > UTC_TIMESTAMP(6)
      """;

  private static final String RETRY_LATER =
      """
      UPDATE tandem_outbox o
         SET o.attempts = o.attempts + 1,
             o.next_attempt_at = UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND,
             o.last_error = ?, o.error_class = ?
       WHERE o.id = ? AND o.published_at IS NULL AND
      """
          + OWNED;

  private static final String QUARANTINE =
      """
      UPDATE tandem_outbox o
         SET o.attempts = o.attempts + 1, o.quarantined_at = UTC_TIMESTAMP(6),
             o.last_error = ?, o.error_class = ?
       WHERE o.id = ? AND o.published_at IS NULL AND
      """
          + OWNED;

  private static final String HEARTBEAT =
      """
      INSERT INTO tandem_relay_instance (relay_id, host, started_at, heartbeat_at)
      VALUES (?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
      ON DUPLICATE KEY UPDATE heartbeat_at = UTC_TIMESTAMP(6)
      """;

  private static final String LIVE_INSTANCES =
      """
      SELECT count(*) AS count FROM tandem_relay_instance
       WHERE heartbeat_at > UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
      """;

  private static final String RENEW =
      """
      UPDATE tandem_relay_partition
         SET lease_until = UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND
       WHERE owner = ? AND lease_until > UTC_TIMESTAMP(6)
      """;

  private static final String OWNED_PARTITIONS =
      """
      SELECT partition_no, epoch FROM tandem_relay_partition
       WHERE owner = ? AND lease_until > UTC_TIMESTAMP(6)
       ORDER BY partition_no
      """;

  private static final String ACQUIRE_CANDIDATES =
      """
      SELECT partition_no FROM tandem_relay_partition
       WHERE owner IS NULL OR lease_until IS NULL OR lease_until <= UTC_TIMESTAMP(6)
       ORDER BY partition_no
       LIMIT ?
       FOR UPDATE SKIP LOCKED
      """;

  // Driven by the list, so that only the listed rows are read and locked (a single-table
  // UPDATE ... WHERE partition_no IN (subquery) reads, and locks, every row). The scalar
  // parameters come first through a one-row derived table, as in MARK_PUBLISHED.
  private static final String ACQUIRE =
      """
      UPDATE (SELECT CAST(? AS CHAR(255)) AS owner, ? AS lease_ms) AS arg
        JOIN JSON_TABLE(?, '$[*]' COLUMNS (v INT PATH '$')) AS mine
        JOIN tandem_relay_partition p ON p.partition_no = mine.v
         SET p.owner = arg.owner, p.epoch = p.epoch + 1, p.acquired_at = UTC_TIMESTAMP(6),
             p.lease_until = UTC_TIMESTAMP(6) + INTERVAL (arg.lease_ms * 1000) MICROSECOND
      """;

  private static final String RELEASE =
      """
      UPDATE (SELECT CAST(? AS CHAR(255)) AS owner) AS arg
        JOIN JSON_TABLE(?, '$[*]' COLUMNS (v INT PATH '$')) AS mine
        JOIN tandem_relay_partition p ON p.partition_no = mine.v AND p.owner = arg.owner
         SET p.owner = NULL, p.lease_until = NULL
      """;

  private static final String DEREGISTER = "DELETE FROM tandem_relay_instance WHERE relay_id = ?";

  private static final String PURGE_INSTANCES =
      """
      DELETE FROM tandem_relay_instance
       WHERE heartbeat_at < UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
      """;

  private static final String LIST_QUARANTINED =
      """
      SELECT event_id, aggregate_type, aggregate_id, aggregate_version, event_type, attempts,
             error_class, last_error, quarantined_at, created_at
        FROM tandem_outbox
       WHERE quarantined_at IS NOT NULL AND published_at IS NULL AND skipped_at IS NULL
       ORDER BY id
       LIMIT ?
      """;

  private static final String REPLAY =
      """
      UPDATE tandem_outbox
         SET quarantined_at = NULL, attempts = 0, next_attempt_at = UTC_TIMESTAMP(6)
       WHERE event_id = ? AND quarantined_at IS NOT NULL AND published_at IS NULL
         AND skipped_at IS NULL
      """;

  private static final String REPLAY_ALL =
      """
      UPDATE tandem_outbox
         SET quarantined_at = NULL, attempts = 0, next_attempt_at = UTC_TIMESTAMP(6)
       WHERE quarantined_at IS NOT NULL AND published_at IS NULL AND skipped_at IS NULL
      """;

  private static final String SKIP =
      """
      UPDATE tandem_outbox SET skipped_at = UTC_TIMESTAMP(6), skip_reason = ?
       WHERE event_id = ? AND published_at IS NULL AND skipped_at IS NULL
      """;

  // Milliseconds rounded like PostgreSQL's (EXTRACT(EPOCH FROM ...) * 1000)::bigint.
  private static final String BACKLOG =
      """
      SELECT count(CASE WHEN published_at IS NULL AND quarantined_at IS NULL
                          AND skipped_at IS NULL THEN 1 END) AS pending,
             CAST(ROUND(TIMESTAMPDIFF(MICROSECOND,
                 min(CASE WHEN published_at IS NULL AND quarantined_at IS NULL
                           AND skipped_at IS NULL THEN created_at END),
                 UTC_TIMESTAMP(6)) / 1000) AS SIGNED) AS oldest_pending_age_ms,
             count(CASE WHEN quarantined_at IS NOT NULL AND published_at IS NULL
                          AND skipped_at IS NULL THEN 1 END) AS quarantined,
             count(CASE WHEN skipped_at IS NOT NULL THEN 1 END) AS skipped,
             count(CASE WHEN published_at IS NOT NULL THEN 1 END) AS published
        FROM tandem_outbox
      """;

  private static final String PARTITIONS =
      """
      SELECT p.partition_no, p.owner, p.epoch,
             CAST(ROUND(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), p.lease_until) / 1000)
                  AS SIGNED) AS lease_remaining_ms,
             (SELECT count(*) FROM tandem_outbox o
               WHERE o.partition_no = p.partition_no AND o.published_at IS NULL
                 AND o.quarantined_at IS NULL AND o.skipped_at IS NULL) AS pending
        FROM tandem_relay_partition p
       ORDER BY p.partition_no
      """;

  private static final String INSTANCES =
      """
      SELECT relay_id, host, started_at,
             CAST(ROUND(TIMESTAMPDIFF(MICROSECOND, heartbeat_at, UTC_TIMESTAMP(6)) / 1000)
                  AS SIGNED) AS heartbeat_age_ms
        FROM tandem_relay_instance
       ORDER BY relay_id
      """;

  private static final String WATERMARK =
      """
      SELECT coalesce(
          (SELECT min(id) FROM tandem_outbox
            WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL),
          (SELECT max(id) + 1 FROM tandem_outbox),
          0) AS watermark
      """;

  private static final String RETENTION_COUNT =
      """
      SELECT count(*) AS count FROM tandem_outbox
       WHERE published_at IS NOT NULL
         AND published_at < UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
         AND id < ?
      """;

  // MariaDB allows neither LIMIT in an IN subquery nor a subquery on the table being deleted
  // from; a single-table DELETE takes ORDER BY and LIMIT itself.
  private static final String RETENTION_DELETE =
      """
      DELETE FROM tandem_outbox
       WHERE published_at IS NOT NULL
         AND published_at < UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
         AND id < ?
       ORDER BY id
       LIMIT ?
      """;

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

  private static final String TRAIL_EVENTS =
      """
      SELECT id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type, occurred_at,
             published_at
        FROM tandem_outbox
       WHERE JSON_VALUE(headers, '$.correlationid') = ?
       ORDER BY occurred_at, id
      """;

  private MariaDbDialect() {}

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
  public String outboxInsert() {
    return INSERT;
  }

  @Override
  public String outboxClaim() {
    return CLAIM;
  }

  @Override
  public String outboxMarkPublished() {
    return MARK_PUBLISHED;
  }

  @Override
  public String outboxRetryLater() {
    return RETRY_LATER;
  }

  @Override
  public String outboxQuarantine() {
    return QUARANTINE;
  }

  @Override
  public String relayHeartbeat() {
    return HEARTBEAT;
  }

  @Override
  public String relayLiveInstances() {
    return LIVE_INSTANCES;
  }

  @Override
  public String relayRenew() {
    return RENEW;
  }

  @Override
  public String relayOwnedPartitions() {
    return OWNED_PARTITIONS;
  }

  @Override
  public String relayAcquireCandidates() {
    return ACQUIRE_CANDIDATES;
  }

  @Override
  public String relayAcquire() {
    return ACQUIRE;
  }

  @Override
  public String relayRelease() {
    return RELEASE;
  }

  @Override
  public String relayDeregister() {
    return DEREGISTER;
  }

  @Override
  public String relayPurgeInstances() {
    return PURGE_INSTANCES;
  }

  @Override
  public String opsListQuarantined() {
    return LIST_QUARANTINED;
  }

  @Override
  public String opsReplay() {
    return REPLAY;
  }

  @Override
  public String opsReplayAll() {
    return REPLAY_ALL;
  }

  @Override
  public String opsSkip() {
    return SKIP;
  }

  @Override
  public String opsBacklog() {
    return BACKLOG;
  }

  @Override
  public String opsPartitions() {
    return PARTITIONS;
  }

  @Override
  public String opsInstances() {
    return INSTANCES;
  }

  @Override
  public String retentionWatermark() {
    return WATERMARK;
  }

  @Override
  public String retentionCount() {
    return RETENTION_COUNT;
  }

  @Override
  public String retentionDelete() {
    return RETENTION_DELETE;
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
  public String trailEvents() {
    return TRAIL_EVENTS;
  }

  @Override
  public boolean isUniqueViolation(SQLException e) {
    int code = e.getErrorCode();
    return "23000".equals(e.getSQLState())
        && (code == ER_DUP_ENTRY || code == ER_DUP_ENTRY_WITH_KEY_NAME || code == ER_DUP_KEY);
  }
}
