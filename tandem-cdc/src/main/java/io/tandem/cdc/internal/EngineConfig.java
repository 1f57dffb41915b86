package io.tandem.cdc.internal;

import io.tandem.cdc.CdcRelaySettings;
import io.tandem.cdc.CdcSetupException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * The Debezium engine's settings of a CDC relay: the connector of its database (PostgreSQL's
 * pgoutput, or MariaDB's binlog through {@link MariaDbConnectorConfig}), the offsets in {@link
 * JdbcOffsetBackingStore}, heartbeats, the relay's poll interval; {@code engineProperty} settings
 * last, so they override.
 */
public final class EngineConfig {
  /** The prefix of Debezium's topic names; the relay publishes to its own transport only. */
  public static final String TOPIC_PREFIX = "tandem";

  /**
   * How long the connector waits for more changes before it hands a batch over: 50 ms, not
   * Debezium's 500 ms, which put half a second on every event at low load (measured with {@code
   * tandem bench relay --mode cdc}: p50 530 ms at 500 events/s). An {@code engineProperty}
   * overrides it.
   */
  private static final String POLL_INTERVAL_MS = "50";

  private EngineConfig() {}

  /** The settings; {@code contextId} names the registered {@link OffsetStoreContext}. */
  public static Properties of(
      CdcRelaySettings s, SetupCheck.Location location, String contextId, boolean positionStored) {
    Properties p = s.mariaDb() ? mariaDb(s, location, positionStored) : postgres(s, location);
    p.setProperty("name", "tandem-cdc-" + s.slotName());
    p.setProperty("offset.storage", JdbcOffsetBackingStore.class.getName());
    p.setProperty(JdbcOffsetBackingStore.CONTEXT, contextId);
    p.setProperty("offset.flush.interval.ms", Long.toString(s.offsetFlushInterval().toMillis()));
    // Debezium 3.5 on Kafka 4.2+ builds a WorkerConfig that requires it; nothing connects to it.
    p.setProperty("bootstrap.servers", "127.0.0.1:9");
    p.setProperty("topic.prefix", TOPIC_PREFIX);
    p.setProperty("tombstones.on.delete", "false");
    // MariaDB: no slot holds the binlog back; heartbeats only move the position on an idle outbox.
    p.setProperty("heartbeat.interval.ms", Long.toString(s.heartbeatInterval().toMillis()));
    p.setProperty("poll.interval.ms", POLL_INTERVAL_MS);
    s.engineProperties().forEach(p::setProperty);
    return p;
  }

  private static Properties postgres(CdcRelaySettings s, SetupCheck.Location location) {
    Properties url = Driver.parseURL(s.jdbcUrl(), null);
    if (url == null) {
      throw new IllegalArgumentException("jdbcUrl is not a PostgreSQL JDBC URL");
    }
    Properties p = new Properties();
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("database.hostname", url.getProperty("PGHOST", "localhost").split(",")[0]);
    p.setProperty("database.port", url.getProperty("PGPORT", "5432").split(",")[0]);
    p.setProperty("database.dbname", location.database());
    p.setProperty(
        "database.user",
        s.user() != null ? s.user() : url.getProperty("user", System.getProperty("user.name")));
    String secret = s.password() != null ? s.password() : url.getProperty("password");
    if (secret != null) {
      p.setProperty("database.password", secret);
    }
    if (url.getProperty("sslmode") != null) {
      p.setProperty("database.sslmode", url.getProperty("sslmode"));
    }
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", s.slotName());
    p.setProperty("publication.name", s.publicationName());
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty(
        "table.include.list",
        location.schema() + ".tandem_outbox," + location.schema() + ".tandem_cdc_heartbeat");
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty(
        "heartbeat.action.query",
        PostgresCdcDialect.heartbeatQuery(location.schema(), s.slotName()));
    return p;
  }

  private static Properties mariaDb(
      CdcRelaySettings s, SetupCheck.Location location, boolean positionStored) {
    Path directory = s.schemaHistoryDirectory();
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new CdcSetupException(
          "cannot create the schema history directory "
              + directory
              + " ("
              + e.getMessage()
              + "): choose a writable one (schemaHistoryDirectory)",
          e);
    }
    return MariaDbConnectorConfig.of(
        s.jdbcUrl(),
        s.user(),
        s.password(),
        location.database(),
        s.slotName(),
        s.serverId(),
        directory.resolve(s.slotName() + ".history"),
        positionStored);
  }
}
