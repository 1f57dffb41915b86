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

  // Whether this relay listens for insert notifications: the outbox trigger notifies only while
  // some relay does (migration V7). No row yet (the relay registers at its first heartbeat, with
  // listening true) means nothing to update.
  private static final String SET_LISTENING =
      "UPDATE tandem_relay_instance SET listening = ? WHERE relay_id = ? AND listening <> ?";

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

  private final OutboxStatements outbox = new OutboxStatements(this, PostgresRelaySql.OUTBOX);
  private final OperationStatements operations = new OperationStatements(PostgresOperationsSql.SQL);
  private final LeaseStatements leases = new LeaseStatements(this, PostgresRelaySql.LEASES);

  private PostgresDialect() {}

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
  public boolean isUniqueViolation(SQLException e) {
    return "23505".equals(e.getSQLState());
  }
}
