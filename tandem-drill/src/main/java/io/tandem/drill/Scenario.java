package io.tandem.drill;

import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.PostgresServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * The outbox drills' system: a service database (business tables and outbox), a consumer database
 * (effects and inbox), a topic the relay writes and the topic the consumer reads (the same one,
 * unless a drill puts a faulty pipe between them), and the processes.
 */
final class Scenario implements AutoCloseable {
  static final Duration START = Duration.ofSeconds(60);
  static final int AGGREGATES = 20;

  final String name;
  final DrillSettings settings;
  final KafkaBroker kafka;
  final IsolatedDatabase serviceDb;
  final IsolatedDatabase consumerDb;
  final String relayTopic;
  final String consumerTopic;
  final Path dir;
  final Path ackLog;
  private final List<JvmProcess> processes = new ArrayList<>();
  private int started;

  Scenario(
      String name,
      DrillSettings settings,
      PostgresServer serviceServer,
      PostgresServer consumerServer,
      KafkaBroker kafka,
      boolean piped)
      throws SQLException {
    this.name = name;
    this.settings = settings;
    this.kafka = kafka;
    this.serviceDb = serviceServer.createDatabase("drill_service");
    this.consumerDb = consumerServer.createDatabase("drill_consumer");
    Migrations.migrate(serviceDb.dataSource());
    Migrations.migrate(consumerDb.dataSource());
    DrillSchema.createServiceTables(serviceDb.dataSource(), AGGREGATES);
    DrillSchema.createConsumerTables(consumerDb.dataSource());
    String run = serviceDb.name().substring(serviceDb.name().lastIndexOf('_') + 1);
    this.relayTopic = "tandem.drill." + name + "." + run;
    this.consumerTopic = piped ? relayTopic + ".delivered" : relayTopic;
    kafka.createTopic(relayTopic, 4);
    if (piped) {
      kafka.createTopic(consumerTopic, 4);
    }
    this.dir = settings.workDir().resolve(name + "-" + run);
    this.ackLog = dir.resolve("service-acks.txt");
  }

  DataSource service() {
    return serviceDb.dataSource();
  }

  DataSource consumer() {
    return consumerDb.dataSource();
  }

  private JvmProcess track(JvmProcess p) {
    processes.add(p);
    return p;
  }

  JvmProcess consumerProcess(String faults, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--jdbc-url",
                consumerDb.jdbcUrl(), // a secret: role() passes it in the environment
                "--kafka-bootstrap",
                kafka.bootstrapServers(),
                "--topic",
                consumerTopic,
                "--group",
                "drill-" + relayTopic));
    args.addAll(List.of(extra));
    return track(role(dir, "consumer-" + (++started), faults, "consumer", args, kafka));
  }

  JvmProcess relayProcess(String faults) {
    String id = "relay-" + (++started);
    return track(
        role(
            dir,
            id,
            faults,
            "relay",
            List.of(
                "--jdbc-url",
                serviceDb.jdbcUrl(),
                "--kafka-bootstrap",
                kafka.bootstrapServers(),
                "--topic",
                relayTopic,
                "--id",
                id,
                "--batch",
                Integer.toString(relayBatch())),
            kafka));
  }

  /**
   * A CDC relay process streaming the service database's outbox from replication slot {@code slot}.
   */
  JvmProcess cdcRelayProcess(String faults, String slot, String... extra) {
    String id = "cdc-relay-" + (++started);
    List<String> args =
        new ArrayList<>(
            List.of(
                "--jdbc-url",
                serviceDb.jdbcUrl(),
                "--kafka-bootstrap",
                kafka.bootstrapServers(),
                "--topic",
                relayTopic,
                "--id",
                id,
                "--mode",
                "cdc",
                "--slot",
                slot));
    args.addAll(List.of(extra));
    return track(role(dir, id, faults, "relay", args, kafka));
  }

  JvmProcess serviceProcess(String faults, int rate, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--jdbc-url", serviceDb.jdbcUrl(),
                "--events", Integer.toString(settings.events()),
                "--aggregates", Integer.toString(AGGREGATES),
                "--rate", Integer.toString(rate),
                "--per-commit", Integer.toString(changesPerCommit()),
                "--kafka-bootstrap", kafka.bootstrapServers(),
                "--topic", relayTopic,
                "--ack-log", ackLog.toString()));
    args.addAll(List.of(extra));
    return track(role(dir, "service-" + (++started), faults, "service", args, kafka));
  }

  /**
   * Starts a {@link RoleMain} role; {@code faults}, when not null, becomes -Dtandem.faults. The
   * Kafka client settings of {@code kafka} (TLS, SASL) go through the child's environment, never
   * its command line.
   */
  private static JvmProcess role(
      Path dir, String name, String faults, String role, List<String> args, KafkaBroker kafka) {
    JvmProcess.Arguments all = JvmProcess.arguments().add(role);
    if (!kafka.clientProperties().isEmpty()) {
      all.environment(
          KafkaClientProperties.ENVIRONMENT_VARIABLE,
          KafkaClientProperties.encode(kafka.clientProperties()));
    }
    for (int i = 0; i < args.size(); i++) {
      all.add(args.get(i));
      if (args.get(i).equals("--jdbc-url") && i + 1 < args.size()) {
        all.secret("TANDEM_DRILL_JDBC_URL", args.get(++i)); // never on the command line
      }
    }
    return JvmProcess.start(dir, name, Faults.jvmOptions(faults), RoleMain.class.getName(), all);
  }

  /** Changes the service commits per transaction: see {@link DrillSettings#changesPerCommit()}. */
  int changesPerCommit() {
    return settings.changesPerCommit();
  }

  /** Events a polling relay reads per cycle: 50 in the short forms, up to 500 in long runs. */
  int relayBatch() {
    return Math.max(50, Math.min(500, settings.events() / 200));
  }

  static void awaitAllReady(JvmProcess... ps) throws InterruptedException {
    for (JvmProcess p : ps) {
      p.awaitOutput(RoleMain.READY, START);
    }
  }

  long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** How long the system may make no progress at all before a drill stops waiting for it. */
  static final Duration STALL = Duration.ofSeconds(20);

  /**
   * Waits until every change the service committed has its effect at the consumer and the consumer
   * has received nothing new for a second; returns whether that happened in time. Gives up early
   * when, the service done, nothing at all moved for {@link #STALL}: a broken system that lost
   * events never catches up, and waiting out the whole timeout would prove nothing more.
   */
  boolean awaitSettled(JvmProcess service) throws InterruptedException {
    long[] progress = {-1, System.nanoTime()};
    long[] changes = {-1}; // fixed once the service is done: read once
    return await(
        () -> {
          try {
            if (service != null && service.isAlive()) {
              progress[1] = System.nanoTime();
              return false;
            }
            if (changes[0] < 0) {
              changes[0] = count(service(), "SELECT count(*) FROM drill_changes");
            }
            // Cheap reads first (the checker polls every 200 ms beside a busy consumer): rows and
            // the deliveries' last sequence number; the distinct count only once rows suffice.
            long effects = count(consumer(), "SELECT count(*) FROM drill_effects");
            long moved = changes[0] + effects + lastDelivery();
            if (moved != progress[0]) {
              progress[0] = moved;
              progress[1] = System.nanoTime();
            } else if (System.nanoTime() - progress[1] > STALL.toNanos()) {
              stalled = true;
            }
            boolean caughtUp =
                changes[0] >= settings.events()
                    && effects >= changes[0]
                    && count(consumer(), "SELECT count(DISTINCT event_id) FROM drill_effects")
                        >= changes[0];
            if (!caughtUp) {
              caughtUpAt = 0;
            } else if (caughtUpAt == 0) {
              caughtUpAt = System.nanoTime();
            }
            return caughtUp && quiet();
          } catch (SQLException e) {
            progress[1] = System.nanoTime();
            return false; // a database restarting
          }
        },
        settings.timeout(),
        () -> stalled);
  }

  /** The sequence number of the last delivery logged (rows are only ever added), or 0. */
  private long lastDelivery() throws SQLException {
    return count(consumer(), "SELECT coalesce(max(seq), 0) FROM drill_deliveries");
  }

  /** Whether the last {@link #awaitSettled} gave up because nothing moved any more. */
  boolean stalled;

  /** When the consumer last caught up with every committed change (System.nanoTime), or 0. */
  long caughtUpAt;

  private long lastDeliveries = -1;
  private long quietSince;

  /** Whether the consumer received nothing new for a second (late redeliveries included). */
  private boolean quiet() throws SQLException {
    long deliveries = lastDelivery();
    long now = System.nanoTime();
    if (deliveries != lastDeliveries) {
      lastDeliveries = deliveries;
      quietSince = now;
      return false;
    }
    return now - quietSince >= TimeUnit.SECONDS.toNanos(1);
  }

  static boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    return await(condition, timeout, () -> false);
  }

  static boolean await(BooleanSupplier condition, Duration timeout, BooleanSupplier giveUp)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      if (giveUp.getAsBoolean()) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    return condition.getAsBoolean();
  }

  Set<UUID> acknowledged() {
    Set<UUID> ids = new HashSet<>();
    if (Files.exists(ackLog)) {
      try {
        for (String line : Files.readAllLines(ackLog, StandardCharsets.UTF_8)) {
          if (!line.isBlank()) {
            ids.add(UUID.fromString(line.trim()));
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + ackLog, e);
      }
    }
    return ids;
  }

  /** What the checker reads now, judged: see {@link Verdicts#outbox}. */
  DrillResult verdict(
      long faultAtNanos, boolean settled, boolean faultHappened, List<String> detail)
      throws SQLException {
    return Verdicts.outbox(
        name, tally(), faultAtNanos, caughtUpAt, stalled, settled, faultHappened, detail, settings);
  }

  Tally tally() throws SQLException {
    return Tally.read(service(), consumer(), acknowledged(), Broker.distinctIds(kafka, relayTopic));
  }

  /** Stops every process this scenario started (SIGTERM, then SIGKILL after 5 s). */
  void closeProcesses() {
    for (JvmProcess p : processes) {
      try {
        p.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    closeProcesses();
    try {
      serviceDb.close();
    } catch (RuntimeException e) {
      // a crashed server's database goes with the server
    }
    consumerDb.close();
  }
}
