package io.tandem.jdbc;

import java.sql.SQLException;

/** PostgreSQL 12 and later. Claims use {@code FOR UPDATE SKIP LOCKED}. */
public final class PostgresDialect implements Dialect {
  public static final PostgresDialect INSTANCE = new PostgresDialect();

  private static final String INSERT =
      """
      INSERT INTO tandem_outbox
          (event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
           schema_version, payload, headers, occurred_at)
      VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)
      """;

  // Due = unpublished, not quarantined, retry time reached, no live lease. SKIP LOCKED lets
  // concurrent relays claim disjoint batches; the lease keeps a claimed row away from other
  // relays after this short transaction commits.
  private static final String CLAIM =
      """
      WITH due AS (
          SELECT id FROM tandem_outbox
          WHERE published_at IS NULL AND quarantined_at IS NULL
            AND next_attempt_at <= now()
            AND (lease_until IS NULL OR lease_until < now())
          ORDER BY id
          LIMIT ?
          FOR UPDATE SKIP LOCKED)
      UPDATE tandem_outbox o
         SET claimed_by = ?, lease_until = now() + make_interval(secs => ? / 1000.0),
             attempts = o.attempts + 1
        FROM due
       WHERE o.id = due.id
      RETURNING o.id, o.event_id, o.aggregate_type, o.aggregate_id, o.aggregate_version,
                o.event_type, o.schema_version, o.payload::text AS payload,
                o.headers::text AS headers, o.occurred_at, o.attempts
      """;

  private static final String MARK_PUBLISHED =
      """
      UPDATE tandem_outbox
         SET published_at = now(), claimed_by = NULL, lease_until = NULL,
             last_error = NULL, error_class = NULL
       WHERE claimed_by = ? AND id = ANY (?) AND published_at IS NULL
      """;

  private static final String RETRY_LATER =
      """
      UPDATE tandem_outbox
         SET next_attempt_at = now() + make_interval(secs => ? / 1000.0),
             last_error = ?, error_class = ?, claimed_by = NULL, lease_until = NULL
       WHERE id = ? AND claimed_by = ? AND published_at IS NULL
      """;

  private static final String QUARANTINE =
      """
      UPDATE tandem_outbox
         SET quarantined_at = now(), last_error = ?, error_class = ?,
             claimed_by = NULL, lease_until = NULL
       WHERE id = ? AND claimed_by = ? AND published_at IS NULL
      """;

  private static final String INBOX_INSERT =
      """
      INSERT INTO tandem_inbox
          (consumer, event_id, aggregate_type, aggregate_id, aggregate_version, event_type)
      VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (consumer, event_id) DO NOTHING
      """;

  private PostgresDialect() {}

  @Override
  public String name() {
    return "postgresql";
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
  public String inboxInsert() {
    return INBOX_INSERT;
  }

  @Override
  public boolean isUniqueViolation(SQLException e) {
    return "23505".equals(e.getSQLState());
  }
}
