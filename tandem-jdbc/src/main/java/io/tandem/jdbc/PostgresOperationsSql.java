package io.tandem.jdbc;

/** The operators' statements on PostgreSQL: quarantine, status, retention. */
final class PostgresOperationsSql {
  private static final String REPLAY =
      """
      UPDATE tandem_outbox
         SET quarantined_at = NULL, attempts = 0, next_attempt_at = now()
       WHERE event_id = ? AND quarantined_at IS NOT NULL AND published_at IS NULL
         AND skipped_at IS NULL
      """;

  private static final String REPLAY_ALL =
      """
      UPDATE tandem_outbox
         SET quarantined_at = NULL, attempts = 0, next_attempt_at = now()
       WHERE quarantined_at IS NOT NULL AND published_at IS NULL AND skipped_at IS NULL
      """;

  private static final String SKIP =
      """
      UPDATE tandem_outbox SET skipped_at = now(), skip_reason = ?
       WHERE event_id = ? AND published_at IS NULL AND skipped_at IS NULL
      """;

  private static final String BACKLOG =
      """
      SELECT count(*) FILTER (WHERE published_at IS NULL AND quarantined_at IS NULL
                                AND skipped_at IS NULL) AS pending,
             (EXTRACT(EPOCH FROM now() - min(created_at) FILTER (
                 WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL))
                 * 1000)::bigint AS oldest_pending_age_ms,
             count(*) FILTER (WHERE quarantined_at IS NOT NULL AND published_at IS NULL
                                AND skipped_at IS NULL) AS quarantined,
             count(*) FILTER (WHERE skipped_at IS NOT NULL) AS skipped,
             count(*) FILTER (WHERE published_at IS NOT NULL) AS published
        FROM tandem_outbox
      """;

  private static final String PARTITIONS =
      """
      SELECT p.partition_no, p.owner, p.epoch,
             (EXTRACT(EPOCH FROM p.lease_until - now()) * 1000)::bigint AS lease_remaining_ms,
             (SELECT count(*) FROM tandem_outbox o
               WHERE o.partition_no = p.partition_no AND o.published_at IS NULL
                 AND o.quarantined_at IS NULL AND o.skipped_at IS NULL) AS pending
        FROM tandem_relay_partition p
       ORDER BY p.partition_no
      """;

  private static final String INSTANCES =
      """
      SELECT relay_id, host, started_at,
             (EXTRACT(EPOCH FROM now() - heartbeat_at) * 1000)::bigint AS heartbeat_age_ms
        FROM tandem_relay_instance
       ORDER BY relay_id
      """;

  private static final String RETENTION_COUNT =
      """
      SELECT count(*) FROM tandem_outbox
       WHERE published_at IS NOT NULL
         AND published_at < now() - make_interval(secs => ? / 1000.0)
         AND id < ?
      """;

  private static final String RETENTION_DELETE =
      """
      DELETE FROM tandem_outbox
       WHERE id IN (SELECT id FROM tandem_outbox
                     WHERE published_at IS NOT NULL
                       AND published_at < now() - make_interval(secs => ? / 1000.0)
                       AND id < ?
                     ORDER BY id
                     LIMIT ?)
      """;

  private static final String TRAIL_EVENTS =
      """
      SELECT id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type, occurred_at,
             published_at
        FROM tandem_outbox
       WHERE headers ->> 'correlationid' = ?
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

  private PostgresOperationsSql() {}
}
