package io.tandem.cdc;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.cdc.internal.MariaDbConnectorConfig;
import io.tandem.cdc.internal.RelayDataSource;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.Transport;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;

/**
 * The setters of {@link CdcRelay.Builder}, which adds {@code build()}: {@link #jdbcUrl} and {@link
 * #transport} are required, everything else has the default its method names. Not thread-safe.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class CdcRelaySettingsBuilder<B extends CdcRelaySettingsBuilder<B>> {
  private String jdbcUrl;
  private String user;
  private String password;
  private DataSource dataSource;
  private Transport transport;
  private String relayId;
  private String slotName = CdcRelay.DEFAULT_SLOT_NAME;
  private String publicationName;
  private boolean createPublication = true;
  private Duration heartbeatInterval = Duration.ofSeconds(CdcRelay.DEFAULT_HEARTBEAT_SECONDS);
  private Duration offsetFlushInterval = Duration.ofMillis(CdcRelay.DEFAULT_OFFSET_FLUSH_MILLIS);
  private Duration publishTimeout = Duration.ofSeconds(CdcRelay.DEFAULT_PUBLISH_TIMEOUT_SECONDS);
  private Duration drainInterval = Duration.ofMillis(CdcRelay.DEFAULT_DRAIN_INTERVAL_MILLIS);
  private Duration monitorInterval = Duration.ofSeconds(CdcRelay.DEFAULT_MONITOR_SECONDS);
  private Duration startTimeout = Duration.ofSeconds(CdcRelay.DEFAULT_START_TIMEOUT_SECONDS);
  private long lagAlertBytes = CdcRelay.DEFAULT_LAG_ALERT_BYTES;
  private Duration lagAlertAge = Duration.ofSeconds(CdcRelay.DEFAULT_LAG_ALERT_SECONDS);
  private RetryPolicy retryPolicy = RetryPolicy.DEFAULTS;
  private FaultInjector faults = FaultInjector.NONE;
  private MeterRegistry meters;
  private ThreadFactory threadFactory = Executors.defaultThreadFactory();
  private final Map<String, String> engineProperties = new LinkedHashMap<>();
  private Long serverId;
  private Path schemaHistoryDirectory =
      Paths.get(System.getProperty("java.io.tmpdir"), "tandem-cdc-schema-history");

  CdcRelaySettingsBuilder() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * MariaDB only: the replica server id the relay reads the binlog as, unique among the server's
   * replicas; default derived from the slot name (65536 and up).
   */
  public B serverId(long serverId) {
    this.serverId = serverId; // checked with the other settings by build()
    return self();
  }

  /**
   * MariaDB only: where the connector's schema history file ({@code <slot>.history}) lives; default
   * {@code <java.io.tmpdir>/tandem-cdc-schema-history}. Losing it is harmless: the relay rebuilds
   * it from the tables' definitions (docs/cdc.md).
   */
  public B schemaHistoryDirectory(Path schemaHistoryDirectory) {
    this.schemaHistoryDirectory = Objects.requireNonNull(schemaHistoryDirectory);
    return self();
  }

  /**
   * The PostgreSQL or MariaDB JDBC URL; Debezium connects with its host, port, user and password
   * (PostgreSQL: the user needs REPLICATION; MariaDB: REPLICATION SLAVE and CLIENT, RELOAD).
   */
  public B jdbcUrl(String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
    return self();
  }

  /** The database user, if not in the URL. */
  public B user(String user) {
    this.user = user;
    return self();
  }

  /** The password, if not in the URL; never logged. */
  public B password(String password) {
    this.password = password;
    return self();
  }

  /** The relay's own statements (marks, offsets); default: a plain data source of the URL. */
  public B dataSource(DataSource dataSource) {
    this.dataSource = dataSource;
    return self();
  }

  public B transport(Transport transport) {
    this.transport = transport;
    return self();
  }

  /** Written to {@code published_by}; default {@code cdc-<host>-<pid>}. */
  public B relayId(String relayId) {
    this.relayId = relayId;
    return self();
  }

  /** The replication slot, also the name of the stored position; default tandem_cdc. */
  public B slotName(String slotName) {
    this.slotName = slotName;
    return self();
  }

  /** The publication (PostgreSQL); default the slot's name. */
  public B publicationName(String publicationName) {
    this.publicationName = publicationName;
    return self();
  }

  /** Whether start creates a missing publication (needs the outbox's owner); default true. */
  public B createPublication(boolean createPublication) {
    this.createPublication = createPublication;
    return self();
  }

  /** How often Debezium's heartbeat moves the position on an idle outbox; default 10 s. */
  public B heartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
    return self();
  }

  /** How often the acknowledged position is stored; default 1 s. */
  public B offsetFlushInterval(Duration offsetFlushInterval) {
    this.offsetFlushInterval = offsetFlushInterval;
    return self();
  }

  /** How long a publish may wait for the broker's acknowledgement; default 10 s. */
  public B publishTimeout(Duration publishTimeout) {
    this.publishTimeout = publishTimeout;
    return self();
  }

  /** How often rows left in the database (retries, start backlog) are looked at; default 1 s. */
  public B drainInterval(Duration drainInterval) {
    this.drainInterval = drainInterval;
    return self();
  }

  /** How often slot lag and backlog are measured; default 10 s. */
  public B monitorInterval(Duration monitorInterval) {
    this.monitorInterval = monitorInterval;
    return self();
  }

  /** How long {@code start()} waits for the engine to stream; default 60 s. */
  public B startTimeout(Duration startTimeout) {
    this.startTimeout = startTimeout;
    return self();
  }

  /** Lag in bytes (WAL held; MariaDB: binlog behind) above which the relay reports lagging. */
  public B lagAlertBytes(long lagAlertBytes) {
    this.lagAlertBytes = lagAlertBytes;
    return self();
  }

  /** Age of the oldest unpublished row above which the relay reports lagging. */
  public B lagAlertAge(Duration lagAlertAge) {
    this.lagAlertAge = lagAlertAge;
    return self();
  }

  /** Backoff and attempts of a failed publish; default {@link RetryPolicy#DEFAULTS}. */
  public B retryPolicy(RetryPolicy retryPolicy) {
    this.retryPolicy = retryPolicy;
    return self();
  }

  /** Fault points for failure drills; default {@link FaultInjector#NONE}. */
  public B faultInjector(FaultInjector faults) {
    this.faults = faults;
    return self();
  }

  /** Where the relay's metrics go; default a registry of its own. */
  public B meterRegistry(MeterRegistry meters) {
    this.meters = meters;
    return self();
  }

  /** Makes the engine's, the drain's and the monitor's threads; default the JDK's. */
  public B threadFactory(ThreadFactory threadFactory) {
    this.threadFactory = threadFactory;
    return self();
  }

  /**
   * A Debezium connector setting passed as is (e.g. {@code max.batch.size}); the relay's own
   * settings above are the supported ones.
   */
  public B engineProperty(String name, String value) {
    engineProperties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value));
    return self();
  }

  /** The settings with defaults resolved; validates every one. */
  CdcRelaySettings settings() {
    boolean knownUrl =
        jdbcUrl != null
            && (jdbcUrl.startsWith("jdbc:postgresql:") || jdbcUrl.startsWith("jdbc:mariadb:"));
    return new CdcRelaySettings(
        jdbcUrl,
        user,
        password,
        dataSource != null || !knownUrl ? dataSource : RelayDataSource.of(jdbcUrl, user, password),
        transport,
        relayId != null ? relayId : RelayDataSource.defaultRelayId(),
        slotName,
        publicationName != null ? publicationName : slotName,
        createPublication,
        heartbeatInterval,
        offsetFlushInterval,
        publishTimeout,
        drainInterval,
        monitorInterval,
        startTimeout,
        lagAlertBytes,
        lagAlertAge,
        retryPolicy,
        faults,
        meters != null ? meters : new SimpleMeterRegistry(),
        threadFactory,
        engineProperties,
        serverId != null
            ? serverId
            : MariaDbConnectorConfig.defaultServerId(String.valueOf(slotName)),
        schemaHistoryDirectory);
  }
}
