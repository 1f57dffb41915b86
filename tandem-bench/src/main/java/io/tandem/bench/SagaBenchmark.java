package io.tandem.bench;

import io.tandem.core.Redaction;
import io.tandem.testkit.KafkaBrokerProcess;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The saga benchmark: completed checkouts per second for the 4-step checkout saga (create-order and
 * authorize-payment compensatable, reserve-inventory the pivot, request-shipping retriable, all
 * succeeding) on Kafka and PostgreSQL, against the bound the database's commit rate sets.
 *
 * <ol>
 *   <li>The orchestrator and the four participants run as {@link SagaBenchSystem} describes: five
 *       databases on one server, five relays, five consumer runners, one broker.
 *   <li>A warm-up of {@value #WARM_UP_SAGAS} sagas (fewer when fewer are asked for) and {@value
 *       #WINDOW_SECONDS} s of the writers below: the JIT of this JVM and of the broker compiles for
 *       tens of seconds, and a shorter warm-up left a fifth of the measured CPU to it.
 *   <li>Commit rate before: {@code 5 × lanes} writers, spread over the same five databases, commit
 *       small transactions (insert a row, update one of 1,000 counter rows) for {@value
 *       #WINDOW_SECONDS} s.
 *   <li>The measured run: N sagas started by {@value #STARTERS} threads with at most {@code
 *       inFlight} running at once (a new one starts when one completes); timed from the first start
 *       to the last completion as the orchestrator recorded them ({@code started_at}, {@code
 *       ended_at}).
 *   <li>Commit rate after, the same way; then the same writers with a {@code pg_notify} in each
 *       transaction, as every outbox insert has (a diagnostic figure).
 *   <li>The floor ({@link SagaFloor}): the checkout's 8 messages and 9 commits without Tandem's
 *       machinery on the same databases and broker, the same warm-up, count and in-flight limit;
 *       its checkouts/s against the same bound ({@code floor_bound_ratio}) is about the most a
 *       design that commits each step and sends each message on its own could reach here.
 * </ol>
 *
 * <p>A <em>local commit</em> is one committed writing transaction on one of the five databases. One
 * saga needs: its start (saga row, step log, first command in the outbox), four reply transactions
 * in the orchestrator's inbox (each one records the reply and, but for the last, sends the next
 * command), four command transactions in the participants' inboxes (business row, participation
 * record, reply in the outbox), and its share of the relays' marking transactions (one per
 * published batch; eight messages per saga). The benchmark counts all three kinds during the
 * measured run (a diagnostic figure); the bound uses the checkout's fixed 9 business commits
 * ({@link SagaBenchReport#BUSINESS_COMMITS_PER_SAGA}): {@code bound = commits/s ÷ 9}, {@code ratio
 * = sagas/s ÷ bound}, and {@code floor_ratio = sagas/s ÷ floor checkouts/s} from the same run.
 *
 * <p>With the embedded server the benchmark also reports the CPU time its processes (this JVM, the
 * broker, the PostgreSQL server) spent per saga and per writer commit: where the machine's CPU is
 * the limit, the ratio is about {@code commits per saga × CPU per commit ÷ CPU per saga}. After the
 * run it checks that every participant applied every saga exactly once.
 *
 * <p>PostgreSQL is the given server or an embedded one with fsync on; Kafka is the given cluster or
 * an embedded broker in a child process.
 */
public final class SagaBenchmark {
  public static final int DEFAULT_SAGAS = 2_000;
  public static final int DEFAULT_IN_FLIGHT = 50;
  public static final int DEFAULT_LANES = 4;

  static final int STARTERS = 4;
  static final int WARM_UP_SAGAS = 2_000;
  static final int WINDOW_SECONDS = 5;

  private final int sagas;
  private final int inFlight;
  private final int lanes;
  private int orchestrators = 1;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  /**
   * @param sagas sagas in the measured run, 100 to 1,000,000
   * @param inFlight most sagas running at once, 1 to 10,000
   * @param lanes worker lanes of each consumer runner, 1 to 64
   * @param jdbcUrl a PostgreSQL server, or null for an embedded one with fsync on
   * @param kafkaBootstrap a Kafka cluster, or null for an embedded broker in a child process
   * @param progress where progress lines go; null for none
   */
  public SagaBenchmark(
      int sagas,
      int inFlight,
      int lanes,
      String jdbcUrl,
      String kafkaBootstrap,
      PrintStream progress) {
    if (sagas < 100 || sagas > 1_000_000) {
      throw new IllegalArgumentException("sagas must be between 100 and 1000000, was " + sagas);
    }
    if (inFlight < 1 || inFlight > 10_000) {
      throw new IllegalArgumentException("inFlight must be between 1 and 10000, was " + inFlight);
    }
    if (lanes < 1 || lanes > 64) {
      throw new IllegalArgumentException("lanes must be between 1 and 64, was " + lanes);
    }
    this.sagas = sagas;
    this.inFlight = inFlight;
    this.lanes = lanes;
    this.jdbcUrl = jdbcUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /**
   * Client settings (TLS, SASL: {@code security.protocol}, {@code sasl.jaas.config}, ...) every
   * Kafka client of the benchmark gets, for the Kafka it was given; none by default.
   */
  public SagaBenchmark kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  /**
   * Orchestrator instances, 1 to 8: threads of this JVM, each with its own reply consumer (one
   * consumer group) and timer, sharing the saga tables and the orchestrator database's one relay;
   * default 1.
   */
  public SagaBenchmark orchestrators(int orchestrators) {
    if (orchestrators < 1 || orchestrators > 8) {
      throw new IllegalArgumentException(
          "orchestrators must be between 1 and 8, was " + orchestrators);
    }
    this.orchestrators = orchestrators;
    return this;
  }

  public SagaBenchReport run() throws Exception {
    try (PostgresServer postgres = jdbcUrl == null ? embedded() : PostgresServer.external(jdbcUrl);
        KafkaBrokerProcess kafkaProcess =
            kafkaBootstrap == null ? KafkaBrokerProcess.start(BenchJvm.brokerOptions()) : null) {
      String bootstrap = kafkaProcess != null ? kafkaProcess.bootstrapServers() : kafkaBootstrap;
      String database =
          postgres.isEmbedded() ? "embedded PostgreSQL (fsync on)" : Redaction.redact(jdbcUrl);
      say("PostgreSQL: %s; Kafka: %s; JIT: %s", database, bootstrap, BenchJvm.describe());
      int writers = SagaBenchSystem.PARTICIPANTS.size() * lanes + lanes;
      try (SagaBenchSystem system =
          SagaBenchSystem.start(
              postgres,
              bootstrap,
              kafkaClient,
              "tandem.bench-" + run + ".",
              lanes,
              STARTERS,
              writers / 5 + 1,
              orchestrators)) {
        SagaCommitRate.createTables(system);
        SagaCommitRate rates = new SagaCommitRate(run);
        SagaDriver driver = new SagaDriver(system, inFlight, run);

        // CPU time is counted for the whole pipeline only when the server is this run's own.
        SagaCpuMeter cpu = new SagaCpuMeter(postgres.isEmbedded() ? system.postmasterPid() : null);
        int warmUp = Math.min(sagas, WARM_UP_SAGAS);
        say("warming up (%d sagas, %d s of writers)", warmUp, WINDOW_SECONDS);
        driver.drive(warmUp);
        rates.measure(system, cpu, writers, Duration.ofSeconds(WINDOW_SECONDS), false);

        SagaCommitRate.Rate before =
            rates.measure(system, cpu, writers, Duration.ofSeconds(WINDOW_SECONDS), false);
        say(
            "%d writers before the run: %.0f commits/s, %.3f ms CPU per commit",
            writers, before.perSec(), before.cpuMillisPerCommit());

        long marks0 = system.relayMarks();
        long consumed0 = system.consumerTransactions();
        long xid0 = system.nextServerXid();
        SagaCpuMeter.Sample cpu0 = cpu.sample();
        KafkaClientMetrics.Sample kafka0 = KafkaClientMetrics.sample();
        boolean trace = System.getenv("TANDEM_BENCH_TRACE") != null;
        CpuTrace trace0 = trace ? CpuTrace.sample() : null;
        boolean statements = STATEMENT_STATS && postgres.isEmbedded();
        if (statements) {
          resetStatementStats(postgres);
        }
        SagaDriver.Measured m = driver.drive(sagas);
        if (statements) {
          printStatementStats(postgres, sagas);
        }
        SagaCpuMeter.Sample sagaCpu = cpu.sample().minus(cpu0);
        KafkaClientMetrics.Sample sagaKafka = KafkaClientMetrics.sample().minus(kafka0);
        if (trace) {
          CpuTrace.sample().printSince(trace0, sagas);
        }
        awaitDrained(system);
        long xid1 = system.nextServerXid();
        long marks = system.relayMarks() - marks0;
        long consumed = system.consumerTransactions() - consumed0;
        double commitsPerSaga = (double) (sagas + consumed + marks) / sagas;
        say(
            "%d sagas in %.2f s: %.1f sagas/s, p50 %.1f ms, p99 %.1f ms; per saga %.2f commits"
                + " (1 start, %.2f consumer, %.2f relay marks)",
            sagas,
            m.seconds(),
            sagas / m.seconds(),
            m.p50(),
            m.p99(),
            commitsPerSaga,
            (double) consumed / sagas,
            (double) marks / sagas);
        if (cpu.countsPostgres()) {
          say(
              "CPU per saga: %.2f ms (this JVM %.2f, Kafka broker %.2f, PostgreSQL %.2f); %.2f"
                  + " cores in use",
              sagaCpu.total() / 1e6 / sagas,
              sagaCpu.jvm() / 1e6 / sagas,
              sagaCpu.children() / 1e6 / sagas,
              sagaCpu.postgres() / 1e6 / sagas,
              sagaCpu.total() / 1e9 / m.seconds());
        }
        say("Kafka per saga: %s", sagaKafka.perUnit(sagas));

        SagaCommitRate.Rate after =
            rates.measure(system, cpu, writers, Duration.ofSeconds(WINDOW_SECONDS), false);
        say(
            "%d writers after the run: %.0f commits/s, %.3f ms CPU per commit",
            writers, after.perSec(), after.cpuMillisPerCommit());
        SagaCommitRate.Rate notifying =
            rates.measure(system, cpu, writers, Duration.ofSeconds(3), true);
        say(
            "%d writers with pg_notify in each transaction: %.0f commits/s",
            writers, notifying.perSec());
        if (system.deadLettered() > 0) {
          throw new IllegalStateException(
              system.deadLettered() + " saga messages were dead-lettered: the run is invalid");
        }
        system.verify(warmUp + sagas);

        FloorRun floor = floor(system, bootstrap, cpu, warmUp);
        // The xid counter and the CPU time are the whole server's: meaningful only on a server the
        // run owns.
        boolean own = postgres.isEmbedded();
        return new SagaBenchReport(
            sagas,
            sagas / m.seconds(),
            m.p50(),
            m.p99(),
            commitsPerSaga,
            before.perSec(),
            after.perSec(),
            writers,
            notifying.perSec(),
            (double) marks / sagas,
            own ? (double) (xid1 - xid0) / sagas : null,
            own ? sagaCpu.total() / 1e6 / sagas : null,
            own ? (before.cpuMillisPerCommit() + after.cpuMillisPerCommit()) / 2 : null,
            own ? sagaCpu.total() / 1e9 / m.seconds() : null,
            floor.result().sagasPerSec(),
            own ? floor.cpu().total() / 1e6 / sagas : null,
            inFlight,
            lanes,
            orchestrators,
            database);
      }
    }
  }

  private record FloorRun(SagaFloor.Result result, SagaCpuMeter.Sample cpu) {}

  /**
   * The floor after the saga run: {@code warmUp} checkouts, then {@code sagas} measured ones, on
   * the saga system's databases; checks the rows it committed.
   */
  private FloorRun floor(SagaBenchSystem system, String bootstrap, SagaCpuMeter cpu, int warmUp)
      throws Exception {
    say(
        "floor: the checkout's 8 messages and 9 commits without Tandem (%d + %d checkouts)",
        warmUp, sagas);
    SagaFloor.Result floor;
    SagaCpuMeter.Sample floorCpu;
    KafkaClientMetrics.Sample floorKafka;
    try (SagaFloor f =
        new SagaFloor(
            system.databases, bootstrap, kafkaClient, "tandem.bench-" + run + ".", lanes)) {
      f.run(warmUp, inFlight, STARTERS);
      SagaCpuMeter.Sample floorCpu0 = cpu.sample();
      KafkaClientMetrics.Sample floorKafka0 = KafkaClientMetrics.sample();
      floor = f.run(sagas, inFlight, STARTERS);
      floorCpu = cpu.sample().minus(floorCpu0);
      floorKafka = KafkaClientMetrics.sample().minus(floorKafka0);
      f.verify(warmUp + sagas);
    }
    say(
        "floor: %.1f checkouts/s, p50 %.1f ms, p99 %.1f ms%s",
        floor.sagasPerSec(),
        floor.p50Millis(),
        floor.p99Millis(),
        cpu.countsPostgres()
            ? String.format(
                Locale.ROOT,
                "; CPU per checkout %.2f ms (this JVM %.2f, Kafka broker %.2f, PostgreSQL %.2f)",
                floorCpu.total() / 1e6 / sagas,
                floorCpu.jvm() / 1e6 / sagas,
                floorCpu.children() / 1e6 / sagas,
                floorCpu.postgres() / 1e6 / sagas)
            : "");
    say("Kafka per floor checkout: %s", floorKafka.perUnit(sagas));
    return new FloorRun(floor, floorCpu);
  }

  /**
   * Diagnostic ({@code TANDEM_BENCH_PGSS=1}, embedded server only): the embedded server loads
   * {@code pg_stat_statements}, and the measured run prints every statement's calls per saga and
   * execution time (wall time: under a saturated CPU it includes the time a backend waited for a
   * core).
   */
  private static final boolean STATEMENT_STATS = System.getenv("TANDEM_BENCH_PGSS") != null;

  private static PostgresServer embedded() {
    PostgresServer.Builder server = PostgresServer.embedded().durable(true);
    if (STATEMENT_STATS) {
      server
          .serverConfig("shared_preload_libraries", "pg_stat_statements")
          .serverConfig("pg_stat_statements.track", "all");
    }
    return server.start();
  }

  private static void resetStatementStats(PostgresServer postgres) throws SQLException {
    try (Connection c = DriverManager.getConnection(postgres.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      st.execute("SELECT pg_stat_statements_reset()");
    }
  }

  private void printStatementStats(PostgresServer postgres, int sagas) throws SQLException {
    try (Connection c = DriverManager.getConnection(postgres.jdbcUrl());
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT d.datname, s.calls, s.total_exec_time, s.rows,"
                    + " left(regexp_replace(s.query, '\\s+', ' ', 'g'), 160)"
                    + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                    + " ORDER BY s.total_exec_time DESC LIMIT 60")) {
      while (rs.next()) {
        say(
            "statement: %s, %.2f calls and %.3f ms per saga, %d rows | %s",
            rs.getString(1),
            rs.getLong(2) / (double) sagas,
            rs.getDouble(3) / sagas,
            rs.getLong(4),
            rs.getString(5));
      }
    }
  }

  /**
   * Waits until the relays marked the last replies published (a relay counts a batch's marking
   * transaction before it runs it, and the rows are pending until it committed).
   */
  private static void awaitDrained(SagaBenchSystem system) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (system.pending() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the relays did not drain their outboxes within 30 s");
      }
      TimeUnit.MILLISECONDS.sleep(20); // polling interval, not a wait for an outcome
    }
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
