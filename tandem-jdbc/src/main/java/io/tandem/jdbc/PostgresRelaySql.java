package io.tandem.jdbc;

import java.util.Optional;

/** The relay's statements on PostgreSQL: outbox rows, partition leases, relay instances. */
final class PostgresRelaySql {
  private static final String INSERT =
      """
      INSERT INTO tandem_outbox
          (event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
           schema_version, payload, headers, occurred_at)
      VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)
      """;

  // A row may go when no earlier version of its aggregate is still unpublished in a state that
  // must go first: quarantined (order holds until an operator acts), waiting for a retry,
  // appended later than it (p.id > o.id), or at or below the cursor (p.id <= cursor: not read by
  // this scan, so it could not go first). An earlier version that is due, above the cursor and
  // with a smaller id is read in the same scan, ahead of it. OFFSET 0 keeps that check a probe of
  // the aggregate's entries in tandem_outbox_pending_by_aggregate for each row read: turned into
  // an anti-join, with the row estimates of a young or never-analyzed table, PostgreSQL scanned
  // the whole index (entries of rows just published included) for every row read.
  private static final String CLAIM =
      """
      SELECT o.id, o.event_id, o.aggregate_type, o.aggregate_id, o.aggregate_version,
             o.event_type, o.schema_version, o.payload::text AS payload,
             o.headers::text AS headers, o.occurred_at, o.attempts, o.partition_no
        FROM tandem_outbox o
       WHERE o.partition_no = ANY (?)
         AND o.id > ?
         AND o.published_at IS NULL AND o.quarantined_at IS NULL AND o.skipped_at IS NULL
         AND o.next_attempt_at <= now()
         AND NOT EXISTS (
             SELECT 1 FROM tandem_outbox p
              WHERE p.aggregate_type = o.aggregate_type AND p.aggregate_id = o.aggregate_id
                AND p.aggregate_version < o.aggregate_version
                AND p.published_at IS NULL AND p.skipped_at IS NULL
                AND (p.quarantined_at IS NOT NULL OR p.next_attempt_at > now()
                     OR p.id > o.id OR p.id <= ?)
             OFFSET 0)
       ORDER BY o.id
       LIMIT ?
      """;

  private static final String OWNED =
      """
      EXISTS (SELECT 1 FROM tandem_relay_partition p
               WHERE p.partition_no = o.partition_no AND p.owner = ? AND p.epoch = ?
                 AND p.lease_until > now())
      """;

  // The one-row subquery "relaxed" sets synchronous_commit off for the statement's own
  // transaction (as relayRecordPreamble does), so the statement can run alone in auto-commit: one
  // round trip instead of three (SET LOCAL, UPDATE, COMMIT).
  private static final String MARK_PUBLISHED =
      """
      UPDATE tandem_outbox o
         SET published_at = now(), published_by = ?, attempts = o.attempts + 1,
             last_error = NULL, error_class = NULL
        FROM tandem_relay_partition p,
             unnest(?::int[], ?::bigint[]) AS mine(partition_no, epoch),
             (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
       WHERE o.id = ANY (?) AND o.published_at IS NULL
         AND p.partition_no = o.partition_no AND p.owner = ? AND p.lease_until > now()
         AND mine.partition_no = p.partition_no AND mine.epoch = p.epoch
      """;

  private static final String RETRY_LATER =
      """
      UPDATE tandem_outbox o
         SET attempts = o.attempts + 1,
             next_attempt_at = now() + make_interval(secs => ? / 1000.0),
             last_error = ?, error_class = ?
       WHERE o.id = ? AND o.published_at IS NULL AND
      """
          + OWNED;

  private static final String QUARANTINE =
      """
      UPDATE tandem_outbox o
         SET attempts = o.attempts + 1, quarantined_at = now(), last_error = ?, error_class = ?
       WHERE o.id = ? AND o.published_at IS NULL AND
      """
          + OWNED;

  private static final String HEARTBEAT =
      """
      INSERT INTO tandem_relay_instance (relay_id, host, started_at, heartbeat_at)
      VALUES (?, ?, now(), now())
      ON CONFLICT (relay_id) DO UPDATE SET heartbeat_at = now()
      """;

  private static final String LIVE_INSTANCES =
      """
      SELECT count(*) FROM tandem_relay_instance
       WHERE heartbeat_at > now() - make_interval(secs => ? / 1000.0)
      """;

  private static final String RENEW =
      """
      UPDATE tandem_relay_partition
         SET lease_until = now() + make_interval(secs => ? / 1000.0)
       WHERE owner = ? AND lease_until > now()
      """;

  private static final String OWNED_PARTITIONS =
      """
      SELECT partition_no, epoch FROM tandem_relay_partition
       WHERE owner = ? AND lease_until > now()
       ORDER BY partition_no
      """;

  private static final String ACQUIRE_CANDIDATES =
      """
      SELECT partition_no FROM tandem_relay_partition
       WHERE owner IS NULL OR lease_until IS NULL OR lease_until <= now()
       ORDER BY partition_no
       LIMIT ?
       FOR UPDATE SKIP LOCKED
      """;

  private static final String ACQUIRE =
      """
      UPDATE tandem_relay_partition
         SET owner = ?, epoch = epoch + 1, acquired_at = now(),
             lease_until = now() + make_interval(secs => ? / 1000.0)
       WHERE partition_no = ANY (?)
      """;

  private static final String RELEASE =
      """
      UPDATE tandem_relay_partition SET owner = NULL, lease_until = NULL
       WHERE owner = ? AND partition_no = ANY (?)
      """;

  private static final String PURGE_INSTANCES =
      """
      DELETE FROM tandem_relay_instance
       WHERE heartbeat_at < now() - make_interval(secs => ? / 1000.0)
      """;

  static final OutboxStatements.Sql OUTBOX =
      new OutboxStatements.Sql(
          INSERT,
          CLAIM,
          MARK_PUBLISHED,
          true,
          RETRY_LATER,
          QUARANTINE,
          Optional.of("SET LOCAL synchronous_commit TO OFF"));

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

  private PostgresRelaySql() {}
}
