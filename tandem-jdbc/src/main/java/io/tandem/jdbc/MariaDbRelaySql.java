package io.tandem.jdbc;

import java.util.Optional;

/** The relay's statements on MariaDB and MySQL: outbox rows, partition leases, relay instances. */
final class MariaDbRelaySql {
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

  // OutboxStatements binds the relay id first, but a multi-table UPDATE names its tables
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

  private static final String PURGE_INSTANCES =
      """
      DELETE FROM tandem_relay_instance
       WHERE heartbeat_at < UTC_TIMESTAMP(6) - INTERVAL (? * 1000) MICROSECOND
      """;

  static final OutboxStatements.Sql OUTBOX =
      new OutboxStatements.Sql(
          INSERT, CLAIM, MARK_PUBLISHED, false, RETRY_LATER, QUARANTINE, Optional.empty());

  static final LeaseStatements.Sql LEASES =
      new LeaseStatements.Sql(
          HEARTBEAT,
          LIVE_INSTANCES,
          RENEW,
          OWNED_PARTITIONS,
          ACQUIRE_CANDIDATES,
          ACQUIRE,
          RELEASE,
          PURGE_INSTANCES);

  private MariaDbRelaySql() {}
}
