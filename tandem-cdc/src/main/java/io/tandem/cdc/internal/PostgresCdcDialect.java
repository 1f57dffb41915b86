package io.tandem.cdc.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.PostgresDialect;
import java.util.regex.Pattern;

/**
 * All SQL of the CDC relay on PostgreSQL, as constants with bind parameters. The only text built
 * from names is DDL and Debezium's heartbeat query, and only from names that {@link #identifier}
 * validated (PostgreSQL cannot bind identifiers).
 */
public final class PostgresCdcDialect implements CdcDialect {
  public static final PostgresCdcDialect INSTANCE = new PostgresCdcDialect();

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private PostgresCdcDialect() {}

  /**
   * {@code name} if it is a lower-case PostgreSQL identifier (also a valid replication slot name).
   *
   * @throws IllegalArgumentException naming the setting and the bad value
   */
  public static String identifier(String setting, String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          setting
              + " must be 1-63 characters of a-z, 0-9 and _, not starting with a digit, but was '"
              + name
              + "'");
    }
    return name;
  }

  public static final String WAL_LEVEL = "SHOW wal_level";

  public static final String CURRENT_SCHEMA = "SELECT current_schema(), current_database()";

  public static final String CAN_REPLICATE =
      """
      SELECT current_user, rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user
      """;

  /**
   * Debezium's heartbeat.action.query: a row in the publication (so the slot's position moves even
   * when the outbox is idle), and the slot's older rows deleted (deletes are not published).
   */
  public static String heartbeatQuery(String schema, String slot) {
    String table = identifier("schema", schema) + ".tandem_cdc_heartbeat";
    String name = identifier("slot", slot);
    return "WITH gone AS (DELETE FROM "
        + table
        + " WHERE slot_name = '"
        + name
        + "' AND beat_at < now() - interval '1 minute') INSERT INTO "
        + table
        + " (slot_name) VALUES ('"
        + name
        + "')";
  }

  /** Marks acknowledged rows published. Parameters: relay id, row ids (bigint[]). */
  public static final String MARK_PUBLISHED =
      """
      UPDATE tandem_outbox o
         SET published_at = now(), published_by = ?, attempts = o.attempts + 1,
             last_error = NULL, error_class = NULL
        FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
       WHERE o.id = ANY (?) AND o.published_at IS NULL
      """;

  /** Parameters: delay in ms, last_error, error_class, row id. */
  public static final String RETRY_LATER =
      """
      UPDATE tandem_outbox o
         SET attempts = o.attempts + 1,
             next_attempt_at = now() + make_interval(secs => ? / 1000.0),
             last_error = ?, error_class = ?
       WHERE o.id = ? AND o.published_at IS NULL
      """;

  /** Parameters: last_error, error_class, row id. */
  public static final String QUARANTINE =
      """
      UPDATE tandem_outbox o
         SET attempts = o.attempts + 1, quarantined_at = now(), last_error = ?, error_class = ?
       WHERE o.id = ? AND o.published_at IS NULL
      """;

  /** Aggregates with rows still to publish (the pending-by-aggregate index covers it). */
  public static final String PENDING_AGGREGATES =
      """
      SELECT DISTINCT aggregate_type, aggregate_id FROM tandem_outbox
       WHERE published_at IS NULL AND skipped_at IS NULL
      """;

  /** One aggregate's rows still to publish, in version order. Parameters: type, id, limit. */
  public static final String PENDING_OF_AGGREGATE =
      """
      SELECT id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
             schema_version, payload::text AS payload, headers::text AS headers, occurred_at,
             attempts, quarantined_at IS NOT NULL AS quarantined,
             coalesce(next_attempt_at > now(), false) AS waiting
        FROM tandem_outbox
       WHERE aggregate_type = ? AND aggregate_id = ? AND published_at IS NULL
         AND skipped_at IS NULL
       ORDER BY aggregate_version
       LIMIT ?
      """;

  /** Parameters: store name. */
  public static final String OFFSETS =
      "SELECT offset_key, offset_value FROM tandem_cdc_offset WHERE store_name = ?";

  /** Parameters: store name, key, value. */
  public static final String SAVE_OFFSET =
      """
      INSERT INTO tandem_cdc_offset (store_name, offset_key, offset_value, updated_at)
      VALUES (?, ?, ?, now())
      ON CONFLICT (store_name, offset_key)
      DO UPDATE SET offset_value = excluded.offset_value, updated_at = now()
      """;

  /** Parameters: slot, relay id, host. */
  public static final String REGISTER_RELAY =
      """
      INSERT INTO tandem_cdc_relay (slot_name, relay_id, host, started_at, heartbeat_at)
      VALUES (?, ?, ?, now(), now())
      ON CONFLICT (slot_name) DO UPDATE
         SET relay_id = excluded.relay_id, host = excluded.host, started_at = now(),
             heartbeat_at = now()
      """;

  /** Parameters: published since the last beat, last published (timestamptz or null), slot. */
  public static final String RELAY_HEARTBEAT =
      """
      UPDATE tandem_cdc_relay
         SET heartbeat_at = now(), published_count = published_count + ?,
             last_published_at = coalesce(?, last_published_at)
       WHERE slot_name = ?
      """;

  /** Parameters: slot. */
  public static final String RELAY_FLUSHED =
      "UPDATE tandem_cdc_relay SET last_flushed_at = now() WHERE slot_name = ?";

  /** Parameters: slot. */
  public static final String RELAY =
      """
      SELECT relay_id, host, started_at, heartbeat_at, last_published_at, last_flushed_at,
             published_count, now() AS db_now,
             (SELECT max(beat_at) FROM tandem_cdc_heartbeat h WHERE h.slot_name = r.slot_name)
                 AS last_heartbeat_row_at
        FROM tandem_cdc_relay r
       WHERE slot_name = ?
      """;

  /** Rows still to publish and the oldest one's age. */
  public static final String BACKLOG =
      """
      SELECT count(*) AS pending, min(created_at) AS oldest, now() AS db_now
        FROM tandem_outbox
       WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL
      """;

  /**
   * The rows among the stream's the table holds. No locking read: pgoutput decodes a prepared
   * transaction only at COMMIT PREPARED. Parameters: row ids (bigint[]).
   */
  public static final String ROWS_OF_STREAM =
      "SELECT id, published_at IS NOT NULL AS published FROM tandem_outbox WHERE id = ANY (?)";

  @Override
  public Dialect jdbc() {
    return PostgresDialect.INSTANCE;
  }

  @Override
  public boolean replicationSlots() {
    return true;
  }

  @Override
  public boolean streamsOnlyCommitted() {
    return true;
  }

  @Override
  public String markPublished() {
    return MARK_PUBLISHED;
  }

  @Override
  public String retryLater() {
    return RETRY_LATER;
  }

  @Override
  public String quarantine() {
    return QUARANTINE;
  }

  @Override
  public String pendingAggregates() {
    return PENDING_AGGREGATES;
  }

  @Override
  public String pendingOfAggregate() {
    return PENDING_OF_AGGREGATE;
  }

  @Override
  public String rowsOfStream() {
    return ROWS_OF_STREAM;
  }

  @Override
  public String offsets() {
    return OFFSETS;
  }

  @Override
  public String saveOffset() {
    return SAVE_OFFSET;
  }

  @Override
  public String registerRelay() {
    return REGISTER_RELAY;
  }

  @Override
  public String relayHeartbeat() {
    return RELAY_HEARTBEAT;
  }

  @Override
  public String relayFlushed() {
    return RELAY_FLUSHED;
  }

  @Override
  public String backlog() {
    return BACKLOG;
  }
}
