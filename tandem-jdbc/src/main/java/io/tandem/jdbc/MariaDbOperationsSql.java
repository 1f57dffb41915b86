package io.tandem.jdbc;

/** The operators' statements on MariaDB and MySQL: quarantine, status, retention. */
final class MariaDbOperationsSql {
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

  private static final String TRAIL_EVENTS =
      """
      SELECT id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type, occurred_at,
             published_at
        FROM tandem_outbox
       WHERE JSON_VALUE(headers, '$.correlationid') = ?
       ORDER BY occurred_at, id
      """;

  static final OperationStatements.Sql SQL =
      new OperationStatements.Sql(
          REPLAY,
          REPLAY_ALL,
          SKIP,
          BACKLOG,
          PARTITIONS,
          INSTANCES,
          RETENTION_COUNT,
          RETENTION_DELETE,
          TRAIL_EVENTS);

  private MariaDbOperationsSql() {}
}
