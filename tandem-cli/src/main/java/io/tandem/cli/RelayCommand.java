package io.tandem.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.cdc.CdcRelay;
import io.tandem.cdc.CdcRelayStatus;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Migrations;
import io.tandem.outbox.OutboxMetrics;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tandem relay}: the relay as its own process, with health and metrics over HTTP. */
@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    description = {
      "Publishes the events that services (in any language) append to tandem_outbox.",
      "Run several instances for availability: they share the 64 partitions through leases.",
      "--mode cdc reads the outbox's inserts from PostgreSQL's WAL or MariaDB's binlog instead",
      "(docs/cdc.md).",
      "Serves /health and /metrics over HTTP; stops gracefully on SIGTERM."
    })
final class RelayCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;
  @Mixin TransportOptions transport;

  /** How the relay finds new events. */
  enum Mode {
    /** Reads due rows of its leased partitions (any database). */
    polling,
    /** Debezium's embedded engine streams the inserts from PostgreSQL's WAL or MariaDB's binlog. */
    cdc
  }

  @Option(
      names = "--mode",
      defaultValue = "polling",
      description =
          "polling or cdc (PostgreSQL with wal_level=logical, or MariaDB with its binlog on in ROW"
              + " format; default: ${DEFAULT-VALUE}).")
  Mode mode;

  @Option(
      names = "--slot",
      defaultValue = CdcRelay.DEFAULT_SLOT_NAME,
      description =
          "--mode cdc: replication slot, also the stored position's name (default: ${DEFAULT-VALUE}).")
  String slot;

  @Option(
      names = "--publication",
      description =
          "--mode cdc: publication to read (default: the slot's name; created if missing).")
  String publication;

  @Option(
      names = "--cdc-heartbeat",
      defaultValue = CdcRelay.DEFAULT_HEARTBEAT_SECONDS + "s",
      converter = DurationConverter.class,
      description =
          "--mode cdc: heartbeat interval; keeps an idle slot from holding WAL (default: ${DEFAULT-VALUE}).")
  Duration cdcHeartbeat;

  @Option(
      names = "--cdc-history-dir",
      description =
          "--mode cdc on MariaDB: directory of the connector's schema history file"
              + " (default: <java.io.tmpdir>/tandem-cdc-schema-history; losing it is harmless).")
  java.nio.file.Path cdcHistoryDirectory;

  @Option(
      names = "--cdc-server-id",
      description =
          "--mode cdc on MariaDB: the replica server_id the relay reads the binlog as, unique"
              + " among the server's replicas (default: derived from --slot).")
  Long cdcServerId;

  @Option(names = "--relay-id", description = "Unique instance name (default: host-pid-random).")
  String relayId;

  @Option(
      names = "--batch-size",
      defaultValue = "" + OutboxRelay.DEFAULT_BATCH_SIZE,
      description = "Events per cycle (default: ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(
      names = "--lease",
      defaultValue = OutboxRelay.DEFAULT_LEASE_SECONDS + "s",
      converter = DurationConverter.class,
      description =
          "Partition lease; time until others take over after a crash (default: ${DEFAULT-VALUE}).")
  Duration lease;

  @Option(
      names = "--heartbeat",
      defaultValue = OutboxRelay.DEFAULT_HEARTBEAT_SECONDS + "s",
      converter = DurationConverter.class,
      description = "Heartbeat and rebalance interval (default: ${DEFAULT-VALUE}).")
  Duration heartbeat;

  @Option(
      names = "--publish-timeout",
      defaultValue = OutboxRelay.DEFAULT_PUBLISH_TIMEOUT_SECONDS + "s",
      converter = DurationConverter.class,
      description = "Wait for the broker's acks of one batch (default: ${DEFAULT-VALUE}).")
  Duration publishTimeout;

  @Option(
      names = "--startup-timeout",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "How long the broker has to answer the check before the relay starts; a cold JVM on a"
              + " busy machine needs seconds for its first connection (default: ${DEFAULT-VALUE}).")
  Duration startupTimeout;

  @Option(
      names = "--poll-interval",
      defaultValue = OutboxRelay.DEFAULT_POLL_INTERVAL_MILLIS + "ms",
      converter = DurationConverter.class,
      description = "Fallback poll when idle (default: ${DEFAULT-VALUE}).")
  Duration pollInterval;

  @Option(
      names = "--linger-when-busy",
      defaultValue = OutboxRelay.DEFAULT_LINGER_WHEN_BUSY_MILLIS + "ms",
      converter = DurationConverter.class,
      description =
          "Pause between the cycles of a busy relay, so that its batches grow with the load"
              + " (PostgreSQL; default: ${DEFAULT-VALUE}; 0ms reads again at once).")
  Duration lingerWhenBusy;

  @Option(
      names = "--http-host",
      defaultValue = "127.0.0.1",
      description =
          "Address of the health and metrics endpoint (default: ${DEFAULT-VALUE}); an address"
              + " outside loopback needs --http-allow-remote.")
  String httpHost;

  @Option(
      names = "--http-allow-remote",
      description =
          "Allow --http-host outside loopback (the endpoint is then reachable from the network;"
              + " a warning is printed). Require a token with --http-token-file or "
              + HttpEndpoint.TOKEN_VARIABLE
              + ".")
  boolean httpAllowRemote;

  @Option(
      names = "--http-token-file",
      paramLabel = "FILE",
      description =
          "File holding a bearer token that every request to the endpoint must carry"
              + " (Authorization: Bearer <token>); default: the environment variable "
              + HttpEndpoint.TOKEN_VARIABLE
              + ", if set. Never on the command line.")
  java.nio.file.Path httpTokenFile;

  @Option(
      names = "--http-port",
      defaultValue = "9464",
      description =
          "Port of the health and metrics endpoint; 0 picks a free one, -1 disables"
              + " it (default: ${DEFAULT-VALUE}).")
  int httpPort;

  @Option(names = "--migrate", description = "Apply Tandem's schema before starting.")
  boolean migrate;

  @Override
  public Integer call() throws Exception {
    if (mode == Mode.cdc) {
      return runCdc();
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    OutboxRelay.Builder builder = checkedSettings().meterRegistry(registry);
    HttpEndpoint endpoint = httpPort < 0 ? null : httpEndpoint(System.getenv());
    CountDownLatch stopped = new CountDownLatch(1);
    try (HikariDataSource ds = database.pool("tandem-relay", 4);
        Transport broker = transport.build(startupTimeout)) {
      if (migrate) {
        Migrations.migrate(ds);
      }
      OutboxRelay relay = builder.dataSource(ds).transport(broker).build();
      OutboxOperations ops = OutboxOperations.create(ds);
      if (endpoint != null) {
        endpoint.warn(System.err);
      }
      try (OutboxMetrics metrics = OutboxMetrics.register(registry, ops, Duration.ofSeconds(5));
          HealthServer http =
              endpoint == null
                  ? null
                  : new HealthServer(
                      endpoint,
                      registry,
                      () -> RelayHealthReport.of(relay.status(), metrics.lastStatus(), lease))) {
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      relay.close(); // graceful: finish the batch, give partitions back
                      stopped.countDown();
                    },
                    "tandem-relay-shutdown"));
        relay.start();
        System.err.printf(
            Locale.ROOT,
            "tandem relay %s publishing via %s%s%s%n",
            relay.relayId(),
            broker.name(),
            transport.connectionNote(),
            http == null
                ? ""
                : "; health and metrics on http://"
                    + (httpHost.contains(":") ? "[" + httpHost + "]" : httpHost)
                    + ":"
                    + http.port());
        try {
          stopped.await();
        } finally {
          stopBeforeThePoolCloses(relay);
        }
      }
    }
    return 0;
  }

  /**
   * Stops {@code relay} when the command ends without the shutdown hook (an interrupted run, as
   * when the CLI is embedded): otherwise the relay keeps cycling on a closed pool. The interrupt is
   * set aside while the relay finishes its batch, then restored.
   */
  private static void stopBeforeThePoolCloses(AutoCloseable relay) throws Exception {
    boolean interrupted = Thread.interrupted();
    try {
      relay.close();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** {@code --mode cdc}: the CDC relay, with the same endpoint and outbox metrics. */
  private Integer runCdc() throws Exception {
    checkStartupTimeout();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    HttpEndpoint endpoint = httpPort < 0 ? null : httpEndpoint(System.getenv());
    CountDownLatch stopped = new CountDownLatch(1);
    try (HikariDataSource ds = database.pool("tandem-cdc", 3);
        Transport broker = transport.build(startupTimeout)) {
      boolean mariaDb = database.jdbcUrl.startsWith("jdbc:mariadb:");
      if (!mariaDb && !database.jdbcUrl.startsWith("jdbc:postgresql:")) {
        int colon = database.jdbcUrl.indexOf(':', 5);
        throw new IllegalArgumentException(
            "--mode cdc needs PostgreSQL (its WAL) or MariaDB (its binlog); use --mode polling for "
                + (colon < 0 ? "this database" : database.jdbcUrl.substring(0, colon)));
      }
      if (!mariaDb && (cdcHistoryDirectory != null || cdcServerId != null)) {
        throw new IllegalArgumentException(
            "--cdc-history-dir and --cdc-server-id are MariaDB settings; PostgreSQL's relay keeps"
                + " its position in the replication slot (--slot)");
      }
      if (mariaDb && publication != null) {
        throw new IllegalArgumentException(
            "--publication is a PostgreSQL setting: MariaDB's relay reads the binlog of the"
                + " URL's database, which needs no publication");
      }
      if (migrate) {
        Migrations.migrate(ds);
      }
      CdcRelay.Builder builder =
          CdcRelay.builder()
              .jdbcUrl(database.jdbcUrl)
              .dataSource(ds)
              .transport(broker)
              .slotName(slot)
              .heartbeatInterval(cdcHeartbeat)
              .publishTimeout(publishTimeout)
              .meterRegistry(registry);
      if (database.user != null && !database.user.isBlank()) {
        builder.user(database.user);
      }
      String password = System.getenv(database.passwordVariable);
      if (password != null) {
        builder.password(password);
      }
      if (publication != null) {
        builder.publicationName(publication);
      }
      if (relayId != null) {
        builder.relayId(relayId);
      }
      if (cdcHistoryDirectory != null) {
        builder.schemaHistoryDirectory(cdcHistoryDirectory);
      }
      CdcRelay relay;
      try {
        if (cdcServerId != null) {
          builder.serverId(cdcServerId);
        }
        relay = builder.build();
      } catch (IllegalArgumentException e) {
        throw CliText.withOptionNames(
            e,
            Map.of(
                "slotName",
                "--slot",
                "publicationName",
                "--publication",
                "serverId",
                "--cdc-server-id"));
      }
      OutboxOperations ops = OutboxOperations.create(ds);
      if (endpoint != null) {
        endpoint.warn(System.err);
      }
      try (OutboxMetrics metrics = OutboxMetrics.register(registry, ops, Duration.ofSeconds(5));
          HealthServer http =
              endpoint == null
                  ? null
                  : new HealthServer(endpoint, registry, () -> cdcHealth(relay.status()))) {
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      relay.close(); // stores the acknowledged position
                      stopped.countDown();
                    },
                    "tandem-relay-shutdown"));
        relay.start();
        System.err.printf(
            Locale.ROOT,
            "tandem relay %s (cdc, %s %s) publishing via %s%s%s%n",
            relay.relayId(),
            mariaDb ? "binlog position" : "slot",
            slot,
            broker.name(),
            transport.connectionNote(),
            http == null ? "" : "; health and metrics on port " + http.port());
        try {
          relay.awaitStop(Duration.ofDays(36500));
          if (relay.status().failure().isPresent()) {
            System.err.println("tandem relay: " + relay.status().failure().get());
            return 1;
          }
          stopped.await();
        } finally {
          stopBeforeThePoolCloses(relay);
        }
      }
    }
    return 0;
  }

  private static HealthServer.Health cdcHealth(CdcRelayStatus s) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("mode", "cdc");
    body.put("slot", s.slotName());
    body.put("running", s.running());
    body.put("failure", s.failure().orElse(null));
    body.put("published", s.published());
    body.put("last_published_at", s.lastPublishedAt().map(Object::toString).orElse(null));
    body.put("last_heartbeat_at", s.lastHeartbeatAt().map(Object::toString).orElse(null));
    body.put("held_aggregates", s.heldAggregates());
    body.put("slot_lag_bytes", s.slotLagBytes() < 0 ? null : s.slotLagBytes());
    body.put("oldest_pending_age_ms", s.oldestPendingAge().toMillis());
    body.put("lagging", s.lagging());
    return new HealthServer.Health(s.running(), body);
  }

  /** The builder's names of the settings these options give, for error messages. */
  private static final Map<String, String> OPTION_NAMES =
      Map.of(
          "relayId", "--relay-id",
          "batchSize", "--batch-size",
          "leaseDuration", "--lease",
          "heartbeatInterval", "--heartbeat",
          "publishTimeout", "--publish-timeout",
          "pollInterval", "--poll-interval",
          "lingerWhenBusy", "--linger-when-busy");

  /**
   * The relay's settings from the options, checked before anything connects.
   *
   * @throws IllegalArgumentException naming the option, e.g. {@code --linger-when-busy must be
   *     between 0 and 1 s, was PT2S}
   */
  OutboxRelay.Builder checkedSettings() {
    checkStartupTimeout();
    OutboxRelay.Builder builder =
        OutboxRelay.builder()
            .batchSize(batchSize)
            .leaseDuration(lease)
            .heartbeatInterval(heartbeat)
            .publishTimeout(publishTimeout)
            .pollInterval(pollInterval)
            .lingerWhenBusy(lingerWhenBusy);
    if (relayId != null) {
      builder.relayId(relayId);
    }
    try {
      return builder.checkSettings();
    } catch (IllegalArgumentException e) {
      throw CliText.withOptionNames(e, OPTION_NAMES);
    }
  }

  private void checkStartupTimeout() {
    if (startupTimeout.isNegative() || startupTimeout.isZero()) {
      throw new IllegalArgumentException(
          "--startup-timeout must be positive, was " + startupTimeout);
    }
  }

  /**
   * The endpoint's address and token from the options and {@code env}, checked before anything
   * connects.
   *
   * @throws IllegalArgumentException naming the option
   */
  HttpEndpoint httpEndpoint(Map<String, String> env) {
    return HttpEndpoint.of(httpHost, httpPort, httpAllowRemote, httpTokenFile, env);
  }
}
