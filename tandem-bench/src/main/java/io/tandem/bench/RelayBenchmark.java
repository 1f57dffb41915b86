package io.tandem.bench;

import io.tandem.core.FaultInjector;
import io.tandem.core.Progress;
import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The relay benchmark. Each phase runs on a fresh database of the same server, one after the other,
 * and every ratio compares two measurements of this run:
 *
 * <ol>
 *   <li>ceiling: the cheapest correct raw SQL loop over N rows — select a batch of unpublished
 *       rows, one UPDATE marking the batch published, no-op publish;
 *   <li>throughput: the relay publishing the same N rows to Kafka, first claim to last ack (the
 *       ceiling and the throughput run as {@value #ROUNDS} pairs; the median ratio is reported);
 *   <li>writers alone, then writers with the relay running (4 writers, business row + outbox row
 *       per transaction); commit-to-ack latency of the second run;
 *   <li>commit-to-ack latency at a steady offered load of 1,000 events/s;
 *   <li>(unless quick) a relay process with -Xmx256m draining a 1,000,000-row backlog;
 *   <li>claim-query time with 10k and (unless quick) 1M published rows in the table, one query on
 *       each table in turn.
 * </ol>
 *
 * <p>PostgreSQL is the given server, or an embedded one with fsync on (never the fast, unsafe
 * defaults); Kafka is the given cluster, or an embedded broker in a child process.
 */
public final class RelayBenchmark {
  /** The relay's default batch size; the ceiling loop uses the same. */
  private static final int BATCH = OutboxRelay.DEFAULT_BATCH_SIZE;

  private static final int WRITERS = 4;
  private static final int MILLION = 1_000_000;

  private static final int WARM_UP_EVENTS = 30_000;

  private int events;
  private final boolean quick;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  public RelayBenchmark(
      int events, boolean quick, String jdbcUrl, String kafkaBootstrap, PrintStream progress) {
    if (events < 1_000 || events > 10_000_000) {
      throw new IllegalArgumentException("events must be between 1000 and 10000000, was " + events);
    }
    this.events = events;
    this.quick = quick;
    this.jdbcUrl = jdbcUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /**
   * Client settings (TLS, SASL: {@code security.protocol}, {@code sasl.jaas.config}, ...) every
   * Kafka client of the benchmark gets, for the Kafka it was given; none by default.
   */
  public RelayBenchmark kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  public RelayBenchReport run() throws Exception {
    try (BenchServers servers = new BenchServers(jdbcUrl, kafkaBootstrap, kafkaClient)) {
      PostgresServer postgres = servers.postgres;
      KafkaBroker kafka = servers.kafka;
      String bootstrap = servers.bootstrapServers();
      String database = servers.database;
      say("PostgreSQL: %s; Kafka: %s; JIT: %s", database, bootstrap, BenchJvm.describe());
      String topic = "bench." + run + ".account";
      kafka.createTopic(topic, 6);
      Duration window = Duration.ofSeconds(quick ? 5 : 10);

      // Warm-up: the same two loops on a smaller table, so that neither measured run pays for the
      // JIT compiling its code path.
      int measured = events;
      events = Math.min(events, WARM_UP_EVENTS);
      say("warming up (%d events through the SQL loop, twice through the relay)", events);
      ceiling(postgres);
      throughput(postgres, bootstrap, topic);
      throughput(postgres, bootstrap, topic);
      events = measured;
      String steadyRounds = System.getenv("TANDEM_BENCH_STEADY_ROUNDS");
      if (steadyRounds != null) { // development probe: the steady phase alone, N times
        for (int i = 0; i < Integer.parseInt(steadyRounds); i++) {
          steadyLoad(postgres, bootstrap, topic, window, 1);
        }
        throw new IllegalStateException("TANDEM_BENCH_STEADY_ROUNDS: probe only, no report");
      }
      // ROUNDS measured pairs of drains, each the ceiling then the relay on fresh tables: the
      // ceiling alone moved between 29,700 and 45,800 rows/s from run to run, so the pair with the
      // median ratio is reported, and every pair's ratio is printed with it.
      double[][] drains = new double[ROUNDS][];
      for (int r = 0; r < ROUNDS; r++) {
        double c = ceiling(postgres);
        double t = throughput(postgres, bootstrap, topic);
        drains[r] = new double[] {t / c, t, c};
      }
      double[] throughputRatios = firstColumn(drains);
      double[] drain = medianRow(drains, "throughput");
      double throughput = drain[1];
      double ceiling = drain[2];
      // One unmeasured pair first: the paced and concurrent paths (4 writers, a relay publishing
      // small batches beside them) are not the drains' paths, and the JIT of this JVM and of the
      // broker compiles them for tens of seconds.
      Duration writersWarmUp = quick ? WRITERS_WARM_UP.dividedBy(2) : WRITERS_WARM_UP;
      say(
          "warming up the writers (%d s alone, %d s with the relay)",
          writersWarmUp.toSeconds(), writersWarmUp.toSeconds());
      writers(postgres, bootstrap, topic, writersWarmUp, false);
      writers(postgres, bootstrap, topic, writersWarmUp, true);
      // Then ROUNDS measured pairs; the machine is shared and noisy, so the pair with the median
      // ratio is reported, and every pair's ratio is printed with it.
      double[][] pairs = new double[ROUNDS][];
      for (int r = 0; r < ROUNDS; r++) {
        double[] alone = writers(postgres, bootstrap, topic, window, false);
        double[] withRelay = writers(postgres, bootstrap, topic, window, true);
        pairs[r] =
            new double[] {
              withRelay[0] / alone[0], alone[0], withRelay[0], withRelay[1], withRelay[2]
            };
      }
      double[] writerRatios = firstColumn(pairs);
      double[] pair = medianRow(pairs, "writer");
      double[][] steady = steadyLoad(postgres, bootstrap, topic, window, ROUNDS);
      double[] steadyP99 = Arrays.stream(steady).mapToDouble(w -> w[1]).toArray();
      double steadyMedianP99 = Arrays.stream(steadyP99).sorted().toArray()[ROUNDS / 2];
      double offered = Arrays.stream(steady).mapToDouble(w -> w[0]).average().orElse(Double.NaN);
      Double heap = null;
      Double claim1m = null;
      double claim10k;
      // Claim-query time with 10k and with 1M published rows, measured side by side: one query on
      // each table in turn, so that the machine's noise falls on both.
      try (BenchDatabase small = new BenchDatabase(postgres, "bench_claim", 2)) {
        small.bulkInsert(0, 10_000, 1_000);
        ClaimTiming.publishAll(small, "bench-published-" + run);
        small.bulkInsert(10_000, 11_000, 1_000);
        if (quick) {
          claim10k = ClaimTiming.medianMillis(List.of(small), BATCH)[0];
        } else {
          try (BenchDatabase big = new BenchDatabase(postgres, "bench_heap", 2)) {
            say("inserting a backlog of 1,000,000 rows");
            big.bulkInsert(0, MILLION, 100_000);
            heap =
                BacklogDrain.inChildProcess(big, bootstrap, topic, kafkaClient, m -> say("%s", m));
            big.bulkInsert(MILLION, MILLION + 1_000, 1_000);
            double[] both = ClaimTiming.medianMillis(List.of(small, big), BATCH);
            claim10k = both[0];
            claim1m = both[1];
          }
        }
        say("claim query with 10k published rows: %.3f ms", claim10k);
        if (claim1m != null) {
          say("claim query with 1M published rows: %.3f ms", claim1m);
        }
      }
      return new RelayBenchReport(
          events,
          throughput,
          ceiling,
          pair[3],
          pair[4],
          steadyMedianP99,
          pair[0],
          heap,
          claim10k,
          claim1m,
          pair[1],
          pair[2],
          offered,
          throughputRatios,
          writerRatios,
          steadyP99,
          database);
    }
  }

  private static double[] firstColumn(double[][] rounds) {
    return Arrays.stream(rounds).mapToDouble(r -> r[0]).toArray();
  }

  /** The round whose ratio (first column) is the median, after printing every round's ratio. */
  private double[] medianRow(double[][] rounds, String what) {
    double[] median =
        Arrays.stream(rounds)
            .sorted(Comparator.comparingDouble(r -> r[0]))
            .toList()
            .get(rounds.length / 2);
    say(
        "%s ratios of the %d rounds: %s (median %.3f)",
        what, rounds.length, Arrays.toString(firstColumn(rounds)), median[0]);
    return median;
  }

  private int aggregates() {
    return Math.max(1_000, events / 10);
  }

  /** The raw SQL loop: read a batch with every column, mark it with one UPDATE. */
  private double ceiling(PostgresServer postgres) throws SQLException {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_ceiling", 2)) {
      db.bulkInsert(0, events, aggregates());
      long start = System.nanoTime();
      long done = RelayCeiling.drain(db, BATCH);
      double perSec = done / seconds(start);
      say("ceiling (raw SQL loop): %.0f rows/s over %d rows", perSec, done);
      return perSec;
    }
  }

  /** The relay draining the same number of rows to Kafka, first claim to last ack. */
  private double throughput(PostgresServer postgres, String bootstrap, String topic)
      throws Exception {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_relay", 4);
        TimingTransport transport = new TimingTransport(kafka(bootstrap, topic))) {
      db.bulkInsert(0, events, aggregates());
      transport.recordEach = false;
      AtomicLong firstClaim = new AtomicLong();
      OutboxRelay relay =
          relayBuilder(db, transport)
              .faultInjector(
                  point -> {
                    if (point.equals(FaultInjector.RELAY_AFTER_CLAIM)) {
                      firstClaim.compareAndSet(0, System.nanoTime());
                    }
                  })
              .build();
      relay.start();
      awaitDrained(db, relay, events, Duration.ofMinutes(10));
      relay.close();
      double perSec = events / ((transport.lastAckNanos.get() - firstClaim.get()) / 1e9);
      say("relay throughput to Kafka: %.0f events/s", perSec);
      return perSec;
    }
  }

  /**
   * Four writers for {@code window}, with or without a relay beside them.
   *
   * @return commits/s, and with the relay also p50 and p99 commit-to-ack in ms
   */
  private double[] writers(
      PostgresServer postgres, String bootstrap, String topic, Duration window, boolean relayOn)
      throws Exception {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_writers", WRITERS + 4);
        TimingTransport transport = new TimingTransport(kafka(bootstrap, topic))) {
      db.execute(OrderWriters.TABLE);
      OutboxRelay relay = relayOn ? relayBuilder(db, transport).build() : null;
      if (relay != null) {
        relay.start();
      }
      ConcurrentHashMap<UUID, Long> commits = new ConcurrentHashMap<>();
      AtomicLong committed = new AtomicLong();
      runWriters(
          db,
          window,
          commits,
          committed,
          0,
          "",
          System.getenv("TANDEM_BENCH_TRACE") != null ? CpuTrace.sample() : null);
      double perSec = committed.get() / (window.toNanos() / 1e9);
      double[] latency = {Double.NaN, Double.NaN};
      if (relay != null) {
        awaitDrained(db, relay, committed.get(), Duration.ofMinutes(2));
        relay.close();
        latency = AckLatencies.millis(commits, transport);
      }
      say(
          "writers %s the relay: %.0f commits/s%s",
          relayOn ? "with" : "without",
          perSec,
          relayOn
              ? String.format(
                  Locale.ROOT, " (commit-to-ack p50 %.1f ms, p99 %.1f ms)", latency[0], latency[1])
              : "");
      return new double[] {perSec, latency[0], latency[1]};
    }
  }

  /** How long the steady load runs before its measured window. */
  static final Duration STEADY_WARM_UP = Duration.ofSeconds(15);

  /** Measured rounds of the writers' comparison and of the steady load; the median is reported. */
  static final int ROUNDS = 5;

  /**
   * How long each unmeasured writers' run (alone, then with the relay) lasts; half with --quick.
   */
  static final Duration WRITERS_WARM_UP = Duration.ofSeconds(20);

  /**
   * A steady offered load of 1,000 events/s on one table and one relay: {@link #STEADY_WARM_UP},
   * then {@code rounds} measured windows of {@code window} back to back; returns each window's rate
   * and p99 commit-to-ack.
   */
  private double[][] steadyLoad(
      PostgresServer postgres, String bootstrap, String topic, Duration window, int rounds)
      throws Exception {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_steady", WRITERS + 4);
        TimingTransport transport = new TimingTransport(kafka(bootstrap, topic))) {
      db.execute(OrderWriters.TABLE);
      boolean noRelay = System.getenv("TANDEM_BENCH_STEADY_NO_RELAY") != null; // probe only
      OutboxRelay relay = relayBuilder(db, transport).build();
      if (!noRelay) {
        relay.start();
      }
      // The same load for STEADY_WARM_UP first, not counted: the relay takes its partitions and its
      // producer its metadata, and the JIT compiles the paths of a paced load, before the measured
      // windows. The relay drains the events as it goes (1,000/s is far below its rate).
      AtomicLong total = new AtomicLong();
      runWriters(db, STEADY_WARM_UP, new ConcurrentHashMap<>(), total, 1_000, "warm-", null);
      boolean trace = System.getenv("TANDEM_BENCH_TRACE") != null;
      List<ConcurrentHashMap<UUID, Long>> windows = new ArrayList<>();
      double[][] out = new double[rounds][];
      for (int r = 0; r < rounds; r++) {
        ConcurrentHashMap<UUID, Long> commits = new ConcurrentHashMap<>();
        AtomicLong committed = new AtomicLong();
        CpuTrace cpuBefore = trace ? CpuTrace.sample() : null;
        runWriters(db, window, commits, committed, 1_000, "w" + r + "-", cpuBefore);
        total.addAndGet(committed.get());
        windows.add(commits);
        out[r] = new double[] {committed.get() / (window.toNanos() / 1e9), Double.NaN};
      }
      if (noRelay) {
        say("steady load %.0f events/s without a relay", out[0][0]);
        return out;
      }
      awaitDrained(db, relay, total.get(), Duration.ofMinutes(2));
      relay.close();
      for (int r = 0; r < rounds; r++) {
        out[r][1] = AckLatencies.millis(windows.get(r), transport)[1];
        say("steady load %.0f events/s: commit-to-ack p99 %.1f ms", out[r][0], out[r][1]);
      }
      return out;
    }
  }

  /**
   * Runs {@value #WRITERS} writers for {@code window}; each transaction inserts a business row and
   * appends one event. {@code ratePerSec} 0 means as fast as possible, otherwise the writers
   * together pace themselves to that rate.
   */
  private void runWriters(
      BenchDatabase db,
      Duration window,
      ConcurrentHashMap<UUID, Long> commits,
      AtomicLong committed,
      int ratePerSec)
      throws Exception {
    runWriters(db, window, commits, committed, ratePerSec, "", null);
  }

  /**
   * Like the above, with {@code idPrefix} before the order ids (a second run on one table); with
   * {@code cpuBefore}, prints the CPU used from then to the end of the window (the writers' threads
   * are still alive then).
   */
  private void runWriters(
      BenchDatabase db,
      Duration window,
      ConcurrentHashMap<UUID, Long> commits,
      AtomicLong committed,
      int ratePerSec,
      String idPrefix,
      CpuTrace cpuBefore)
      throws Exception {
    OrderWriters.run(db.pool, WRITERS, window, commits, committed, ratePerSec, idPrefix, cpuBefore);
  }

  private OutboxRelay.Builder relayBuilder(BenchDatabase db, Transport transport) {
    OutboxRelay.Builder b =
        OutboxRelay.builder()
            .dataSource(db.pool)
            .transport(transport)
            .relayId("bench-" + run)
            .batchSize(BATCH);
    String linger = System.getenv("TANDEM_BENCH_LINGER_WHEN_BUSY_MS"); // probe only
    if (linger != null) {
      b.lingerWhenBusy(Duration.ofMillis(Long.parseLong(linger)));
    }
    String pollMs = System.getenv("TANDEM_BENCH_RELAY_POLL_MS"); // probe only
    if (pollMs != null) {
      b.listenForInserts(false).pollInterval(Duration.ofMillis(Long.parseLong(pollMs)));
    }
    return b;
  }

  private Transport kafka(String bootstrap, String topic) {
    KafkaTransport.Builder b =
        KafkaTransport.builder()
            .bootstrapServers(bootstrap)
            .clientProperties(kafkaClient)
            .source("/tandem/bench")
            .topicRouter(TopicRouter.fixed(topic));
    String linger = System.getenv("TANDEM_BENCH_LINGER_MS"); // probe only
    if (linger != null) {
      b.producerProperty("linger.ms", linger);
    }
    return b.build();
  }

  /**
   * Waits until the relay has marked {@code expected} rows published, then confirms in the database
   * that nothing is pending. The wait watches the relay's own counter: polling a count over the
   * outbox meanwhile would load the database whose throughput is being measured.
   */
  private void awaitDrained(BenchDatabase db, OutboxRelay relay, long expected, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    long before = relay.publishedCount();
    try (Progress bar =
        progress == null
            ? null
            : Progress.start("[bench] published", Math.max(0, expected - before), progress)) {
      while (relay.publishedCount() < expected) {
        checkDeadline(deadline, timeout);
        if (bar != null) {
          bar.update(relay.publishedCount() - before);
        }
        TimeUnit.MILLISECONDS.sleep(5);
      }
      if (bar != null) {
        bar.update(relay.publishedCount() - before);
      }
    }
    while (db.pending() > 0) {
      checkDeadline(deadline, timeout);
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private static void checkDeadline(long deadline, Duration timeout) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("the relay did not drain the outbox within " + timeout);
    }
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
