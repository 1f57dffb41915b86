package io.tandem.cdc.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.mariadb.jdbc.Configuration;
import org.mariadb.jdbc.HostAddress;

/**
 * Debezium's MariaDB connector settings of a CDC relay: the binlog of the URL's server, the
 * outbox's database only, no data snapshot, schema history in a file of the relay's own.
 *
 * <p><b>Schema history.</b> The binlog connector needs the tables' definitions as they were at each
 * binlog position; it keeps them in a schema history, here {@code <directory>/<slot>.history}
 * (Debezium's {@code FileSchemaHistory}), holding the DDL of the outbox and heartbeat tables only.
 * Losing the file costs nothing: when it is missing and a position is stored, the connector starts
 * in {@code recovery} mode, which rebuilds the history from the tables' current definitions (the
 * outbox changes only through Tandem's migrations).
 */
public final class MariaDbConnectorConfig {
  private MariaDbConnectorConfig() {}

  /** The connector's settings; the caller adds the engine's (offsets, heartbeat, prefix). */
  public static Properties of(
      String jdbcUrl,
      String user,
      String password,
      String database,
      String slot,
      long serverId,
      Path historyFile,
      boolean positionStored) {
    Configuration url;
    try {
      url = Configuration.parse(jdbcUrl);
    } catch (java.sql.SQLException e) {
      throw new IllegalArgumentException("jdbcUrl is not a MariaDB JDBC URL: " + e.getMessage());
    }
    if (url == null || url.addresses().isEmpty()) {
      throw new IllegalArgumentException("jdbcUrl is not a MariaDB JDBC URL naming a host");
    }
    HostAddress host = url.addresses().get(0);
    Properties p = new Properties();
    p.setProperty("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    p.setProperty("database.hostname", host.host);
    p.setProperty("database.port", Integer.toString(host.port));
    p.setProperty(
        "database.user",
        user != null ? user : url.user() != null ? url.user() : System.getProperty("user.name"));
    String secret = password != null ? password : url.password();
    if (secret != null) {
      p.setProperty("database.password", secret);
    }
    p.setProperty("database.server.id", Long.toString(serverId));
    p.setProperty("database.include.list", database);
    p.setProperty(
        "table.include.list", database + ".tandem_outbox," + database + ".tandem_cdc_heartbeat");
    p.setProperty("include.schema.changes", "false");
    p.setProperty(
        "snapshot.mode", !Files.exists(historyFile) && positionStored ? "recovery" : "no_data");
    p.setProperty("schema.history.internal", "io.debezium.storage.file.history.FileSchemaHistory");
    p.setProperty("schema.history.internal.file.filename", historyFile.toString());
    p.setProperty("schema.history.internal.store.only.captured.tables.ddl", "true");
    p.setProperty("schema.history.internal.store.only.captured.databases.ddl", "true");
    return p;
  }

  /** A server id from the slot name, in 65536..1,065,535 (away from the usual small ones). */
  public static long defaultServerId(String slot) {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(slot.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return 65_536 + crc.getValue() % 1_000_000;
  }
}
