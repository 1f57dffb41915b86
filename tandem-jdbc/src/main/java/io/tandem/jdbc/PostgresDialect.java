package io.tandem.jdbc;

import io.tandem.jdbc.internal.PostgresNotificationListener;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import javax.sql.DataSource;

/** PostgreSQL 12 and later. Lists bind as arrays; new outbox rows are announced by NOTIFY. */
public final class PostgresDialect implements Dialect {
  public static final PostgresDialect INSTANCE = new PostgresDialect();

  /** The channel the outbox's insert trigger notifies. */
  public static final String OUTBOX_CHANNEL = "tandem_outbox";

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

  // Whether this relay listens for insert notifications: the outbox trigger notifies only while
  // some relay does (migration V7). No row yet (the relay registers at its first heartbeat, with
  // listening true) means nothing to update.
  private static final String SET_LISTENING =
      "UPDATE tandem_relay_instance SET listening = ? WHERE relay_id = ? AND listening <> ?";

  private static final String DEREGISTER = "DELETE FROM tandem_relay_instance WHERE relay_id = ?";

  private static final String PURGE_INSTANCES =
      """
      DELETE FROM tandem_relay_instance
       WHERE heartbeat_at < now() - make_interval(secs => ? / 1000.0)
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

  private static final String POSITION_CREATE =
      """
      INSERT INTO tandem_inbox_position
          (consumer, aggregate_type, aggregate_id, last_version, start_version)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING
      """;

  private static final String POSITION_UPDATE =
      """
      UPDATE tandem_inbox_position SET last_version = ?, updated_at = now()
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?
      """;

  private static final String PARKED_INSERT =
      """
      INSERT INTO tandem_inbox_parked
          (consumer, aggregate_type, aggregate_id, aggregate_version, event_id, event_type,
           schema_version, payload, headers, occurred_at, origin)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING
      """;

  private static final String PARKED_GAPS =
      """
      SELECT p.aggregate_type, p.aggregate_id, pos.last_version,
             min(p.aggregate_version) AS first_parked, count(*) AS parked,
             min(p.parked_at) AS oldest_parked_at,
             (extract(epoch FROM now() - min(p.parked_at)) * 1000)::bigint AS waiting_ms
        FROM tandem_inbox_parked p
        LEFT JOIN tandem_inbox_position pos
          ON pos.consumer = p.consumer AND pos.aggregate_type = p.aggregate_type
         AND pos.aggregate_id = p.aggregate_id
       WHERE p.consumer = ?
         -- a row at or below the position was applied and awaits the drain's delete: no gap
         AND (pos.last_version IS NULL OR p.aggregate_version > pos.last_version)
       GROUP BY p.aggregate_type, p.aggregate_id, pos.last_version
      HAVING min(p.parked_at) <= now() - make_interval(secs => ? / 1000.0)
       ORDER BY min(p.parked_at)
       LIMIT ?
      """;

  private static final String PARKED_SUMMARY =
      """
      SELECT count(*) AS parked,
             (extract(epoch FROM now() - min(parked_at)) * 1000)::bigint AS oldest_ms
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
      UPDATE tandem_dead_letter SET status = ?, resolved_at = now()
       WHERE id = ? AND status = 'DEAD'
      """;

  private static final String INBOX_RETENTION_COUNT =
      """
      SELECT count(*) AS count FROM tandem_inbox
       WHERE processed_at < now() - make_interval(secs => ? / 1000.0)
      """;

  private static final String INBOX_RETENTION_DELETE =
      """
      DELETE FROM tandem_inbox
       WHERE (consumer, event_id) IN
             (SELECT consumer, event_id FROM tandem_inbox
               WHERE processed_at < now() - make_interval(secs => ? / 1000.0)
               ORDER BY processed_at
               LIMIT ?)
      """;

  private static final String POSITION_ADVANCE_AND_RECORD =
      """
      WITH advanced AS (
          UPDATE tandem_inbox_position SET last_version = ?, updated_at = now()
           WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND last_version = ?
          RETURNING 1),
        recorded AS (
          INSERT INTO tandem_inbox
              (consumer, event_id, aggregate_type, aggregate_id, aggregate_version, event_type)
          SELECT ?, ?, ?, ?, ?, ? FROM advanced
          ON CONFLICT DO NOTHING
          RETURNING 1)
      SELECT (SELECT count(*) FROM advanced) AS advanced, (SELECT count(*) FROM recorded) AS recorded,
             EXISTS (SELECT 1 FROM tandem_inbox_parked
                      WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?
                        AND aggregate_version = ?) AS successor_parked
      """;

  private static final String INBOX_INSERT =
      """
      INSERT INTO tandem_inbox
          (consumer, event_id, aggregate_type, aggregate_id, aggregate_version, event_type)
      VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (consumer, event_id) DO NOTHING
      """;

  private static final String TRAIL_EVENTS =
      """
      SELECT id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type, occurred_at,
             published_at
        FROM tandem_outbox
       WHERE headers ->> 'correlationid' = ?
       ORDER BY occurred_at, id
      """;

  private PostgresDialect() {}

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public void bindList(
      Connection connection, PreparedStatement ps, int index, Collection<? extends Number> values)
      throws SQLException {
    boolean integers = values.stream().allMatch(v -> v instanceof Integer);
    ps.setArray(index, connection.createArrayOf(integers ? "integer" : "bigint", values.toArray()));
  }

  @Override
  public Optional<InsertNotifications> listenForOutboxInserts(
      DataSource dataSource, String relayId, Runnable onNotify, Duration reconnectDelay) {
    PostgresNotificationListener.SwitchHook record =
        (connection, listening) -> {
          try (PreparedStatement ps = connection.prepareStatement(SET_LISTENING)) {
            ps.setBoolean(1, listening);
            ps.setString(2, relayId);
            ps.setBoolean(3, listening);
            ps.executeUpdate();
          }
        };
    return Optional.of(
        PostgresNotificationListener.start(
            dataSource, OUTBOX_CHANNEL, record, onNotify, reconnectDelay));
  }

  @Override
  public Optional<String> relayRecordPreamble() {
    return Optional.of("SET LOCAL synchronous_commit TO OFF");
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
  public boolean outboxMarkPublishedStandsAlone() {
    return true;
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
  public Optional<String> positionAdvanceAndRecord() {
    return Optional.of(POSITION_ADVANCE_AND_RECORD);
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
    return "23505".equals(e.getSQLState());
  }
}
