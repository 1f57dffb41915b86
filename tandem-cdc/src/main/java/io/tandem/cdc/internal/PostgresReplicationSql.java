package io.tandem.cdc.internal;

/**
 * The CDC relay's statements on PostgreSQL's replication slots and publications, as constants with
 * bind parameters; DDL only from names {@link PostgresCdcDialect#identifier} validated.
 */
public final class PostgresReplicationSql {
  private PostgresReplicationSql() {}

  /** Parameters: slot name. */
  public static final String SLOT =
      """
      SELECT s.plugin, s.slot_type, s.database, s.active, s.active_pid,
             s.confirmed_flush_lsn::text AS confirmed_flush_lsn,
             pg_wal_lsn_diff(pg_current_wal_lsn(), s.confirmed_flush_lsn)::bigint AS lag_bytes,
             (SELECT a.client_addr::text FROM pg_stat_activity a WHERE a.pid = s.active_pid)
                 AS client_addr,
             (SELECT a.application_name FROM pg_stat_activity a WHERE a.pid = s.active_pid)
                 AS application_name
        FROM pg_replication_slots s
       WHERE s.slot_name = ?
      """;

  /** Parameters: publication name. */
  public static final String PUBLICATION =
      "SELECT puballtables, pubinsert FROM pg_publication WHERE pubname = ?";

  /** Parameters: publication name, schema. */
  public static final String PUBLISHED_TABLES =
      """
      SELECT tablename FROM pg_publication_tables
       WHERE pubname = ? AND schemaname = ?
         AND tablename IN ('tandem_outbox', 'tandem_cdc_heartbeat')
      """;

  /** The publication the relay reads: inserts into the outbox and heartbeat rows, nothing else. */
  public static String createPublication(String publication) {
    return "CREATE PUBLICATION "
        + PostgresCdcDialect.identifier("publication", publication)
        + " FOR TABLE tandem_outbox, tandem_cdc_heartbeat WITH (publish = 'insert')";
  }

  /** Parameters: slot. */
  public static final String DROP_SLOT = "SELECT pg_drop_replication_slot(?)";

  /** The server's WAL write position. */
  public static final String CURRENT_LSN = "SELECT pg_current_wal_lsn()::text";

  /** Ends the client streaming from a slot, if any. Parameters: slot. */
  public static final String END_SLOT_CLIENT =
      """
      SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
       WHERE slot_name = ? AND active_pid IS NOT NULL
      """;

  /** Drops a slot unless a client streams from it; a row if it was dropped. Parameters: slot. */
  public static final String DROP_INACTIVE_SLOT =
      """
      SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
       WHERE slot_name = ? AND NOT active
      """;

  /** Parameters: slot. */
  public static final String SLOT_EXISTS = "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?";
}
