package io.tandem.cdc.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.MariaDbDialect;

/**
 * All SQL of the CDC relay on MariaDB, as constants with bind parameters: PostgreSQL's statements
 * ({@link PostgresCdcDialect}) with MariaDB's types (UTC {@code DATETIME(6)}, lists as JSON arrays
 * read with {@code JSON_TABLE}).
 */
public final class MariaDbCdcDialect implements CdcDialect {
  public static final MariaDbCdcDialect INSTANCE = new MariaDbCdcDialect();

  private static final String IDS = "JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS ids";

  private MariaDbCdcDialect() {}

  @Override
  public Dialect jdbc() {
    return MariaDbDialect.INSTANCE;
  }

  @Override
  public boolean replicationSlots() {
    return false;
  }

  @Override
  public boolean streamsOnlyCommitted() {
    return false;
  }

  @Override
  public String markPublished() {
    return """
        UPDATE (SELECT CAST(? AS CHAR(255)) AS relay_id) AS arg
          JOIN %s
          JOIN tandem_outbox o ON o.id = ids.id
           SET o.published_at = UTC_TIMESTAMP(6), o.published_by = arg.relay_id,
               o.attempts = o.attempts + 1, o.last_error = NULL, o.error_class = NULL
         WHERE o.published_at IS NULL
        """
        .formatted(IDS);
  }

  @Override
  public String retryLater() {
    return """
        UPDATE tandem_outbox o
           SET o.attempts = o.attempts + 1,
               o.next_attempt_at = UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND,
               o.last_error = ?, o.error_class = ?
         WHERE o.id = ? AND o.published_at IS NULL
        """;
  }

  @Override
  public String quarantine() {
    return """
        UPDATE tandem_outbox o
           SET o.attempts = o.attempts + 1, o.quarantined_at = UTC_TIMESTAMP(6),
               o.last_error = ?, o.error_class = ?
         WHERE o.id = ? AND o.published_at IS NULL
        """;
  }

  @Override
  public String pendingAggregates() {
    return """
        SELECT DISTINCT aggregate_type, aggregate_id FROM tandem_outbox
         WHERE published_at IS NULL AND skipped_at IS NULL
        """;
  }

  @Override
  public String pendingOfAggregate() {
    return """
        SELECT id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
               schema_version, payload, headers, occurred_at, attempts,
               quarantined_at IS NOT NULL AS quarantined,
               next_attempt_at > UTC_TIMESTAMP(6) AS waiting
          FROM tandem_outbox
         WHERE aggregate_type = ? AND aggregate_id = ? AND published_at IS NULL
           AND skipped_at IS NULL
         ORDER BY aggregate_version
         LIMIT ?
        """;
  }

  @Override
  public String rowsOfStream() {
    return """
        SELECT o.id, o.published_at IS NOT NULL AS published
          FROM tandem_outbox o
         WHERE o.id IN (SELECT ids.id FROM %s)
          LOCK IN SHARE MODE
        """
        .formatted(IDS);
  }

  @Override
  public String offsets() {
    return "SELECT offset_key, offset_value FROM tandem_cdc_offset WHERE store_name = ?";
  }

  @Override
  public String saveOffset() {
    return """
        INSERT INTO tandem_cdc_offset (store_name, offset_key, offset_value, updated_at)
        VALUES (?, ?, ?, UTC_TIMESTAMP(6))
        ON DUPLICATE KEY UPDATE offset_value = VALUES(offset_value), updated_at = UTC_TIMESTAMP(6)
        """;
  }

  @Override
  public String registerRelay() {
    return """
        INSERT INTO tandem_cdc_relay (slot_name, relay_id, host, started_at, heartbeat_at)
        VALUES (?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
        ON DUPLICATE KEY UPDATE relay_id = VALUES(relay_id), host = VALUES(host),
               started_at = UTC_TIMESTAMP(6), heartbeat_at = UTC_TIMESTAMP(6)
        """;
  }

  @Override
  public String relayHeartbeat() {
    return """
        UPDATE tandem_cdc_relay
           SET heartbeat_at = UTC_TIMESTAMP(6), published_count = published_count + ?,
               last_published_at = coalesce(?, last_published_at)
         WHERE slot_name = ?
        """;
  }

  @Override
  public String relayFlushed() {
    return "UPDATE tandem_cdc_relay SET last_flushed_at = UTC_TIMESTAMP(6) WHERE slot_name = ?";
  }

  @Override
  public String backlog() {
    return """
        SELECT count(*) AS pending, min(created_at) AS oldest, UTC_TIMESTAMP(6) AS db_now
          FROM tandem_outbox
         WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL
        """;
  }

  /** The binlog settings and privileges the setup check reads. */
  public static final String BINLOG_SETTINGS =
      "SELECT @@log_bin, @@binlog_format, @@binlog_row_image, DATABASE(), CURRENT_USER()";

  /** The current user's global privileges (USER_PRIVILEGES lists each one of ALL PRIVILEGES). */
  public static final String PRIVILEGES =
      """
      SELECT privilege_type FROM information_schema.user_privileges
       WHERE grantee = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''',
                              SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')
      """;

  /** The server's binlog files and their sizes (needs BINLOG MONITOR). */
  public static final String BINARY_LOGS = "SHOW BINARY LOGS";

  /** The server's binlog write position: file and position (needs BINLOG MONITOR). */
  public static final String MASTER_STATUS = "SHOW MASTER STATUS";

  /**
   * Threads reading the binlog as a replica (Debezium's connector among them); without PROCESS, the
   * current user's only.
   */
  public static final String BINLOG_READERS =
      """
      SELECT min(id) AS thread_id, count(*) AS readers FROM information_schema.processlist
       WHERE command LIKE 'Binlog Dump%'
      """;

  /** Parameters: slot. */
  public static final String RELAY =
      """
      SELECT relay_id, host, started_at, heartbeat_at, last_published_at, last_flushed_at,
             published_count, UTC_TIMESTAMP(6) AS db_now,
             (SELECT max(beat_at) FROM tandem_cdc_heartbeat h WHERE h.slot_name = r.slot_name)
                 AS last_heartbeat_row_at
        FROM tandem_cdc_relay r
       WHERE slot_name = ?
      """;
}
