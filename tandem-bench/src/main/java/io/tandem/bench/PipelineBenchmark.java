package io.tandem.bench;

import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The whole pipeline on one machine: {@value #WRITERS} writer threads commit a business row and an
 * outbox row on one PostgreSQL database, the relay publishes to Kafka, and a consumer applies each
 * event through the batched inbox ({@link PipelineBilling}: ordering guard, inbox record, effect
 * row, one transaction per batch of what has arrived) into a second database on the same server.
 * Measured in one run, each phase on fresh databases and a fresh topic:
 *
 * <ol>
 *   <li>the writers alone, as fast as they can, on a database of their own;
 *   <li>the pipeline with the writers as fast as they can: effects committed per second in the
 *       measured window (at most the writers' rate in it: the rate sustained end to end), how fast
 *       the backlog (committed, not yet applied) grows, and commit at the writer to the effect's
 *       commit at the consumer (p50, p99) for every event of the window, waited for until applied;
 *   <li>the pipeline at a steady {@value #OFFERED_PER_SEC} events/s offered: the same latency and
 *       backlog figures.
 * </ol>
 *
 * <p>Each phase runs the same load unmeasured first, for {@link #WARM_UP} or the window if shorter
 * (the relay takes its partitions, the consumer group its assignment, the JIT compiles the paths).
 */
public final class PipelineBenchmark {
  static final int WRITERS = 4;
  static final int PARTITIONS = 8;
  static final int OFFERED_PER_SEC = 1_000;
  static final Duration WARM_UP = Duration.ofSeconds(10);

  private final Duration window;
  private final Duration warmUp;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  /**
   * @param window the measured window of each phase, 5 s to 10 min
   * @param jdbcUrl a PostgreSQL server to create the databases on, or null for an embedded one with
   *     fsync on
   * @param kafkaBootstrap a Kafka cluster, or null for an embedded broker in a child process
   * @param progress where progress lines go, or null
   */
  public PipelineBenchmark(
      Duration window, String jdbcUrl, String kafkaBootstrap, PrintStream progress) {
    if (window.compareTo(Duration.ofSeconds(5)) < 0
        || window.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException(
          "the window must be between 5 s and 10 min, was " + window.toSeconds() + " s");
    }
    this.window = window;
    this.warmUp = window.compareTo(WARM_UP) < 0 ? window : WARM_UP;
    this.jdbcUrl = jdbcUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /**
   * Client settings (TLS, SASL: {@code security.protocol}, {@code sasl.jaas.config}, ...) every
   * Kafka client of the benchmark gets, for the Kafka it was given; none by default.
   */
  public PipelineBenchmark kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  public PipelineBenchReport run() throws Exception {
    try (BenchServers servers = new BenchServers(jdbcUrl, kafkaBootstrap, kafkaClient)) {
      say(
          "PostgreSQL: %s; Kafka: %s; JIT: %s",
          servers.database, servers.bootstrapServers(), BenchJvm.describe());
      double alone = writersAlone(servers.postgres);
      Phase full = pipeline(servers, 0, "full");
      Phase steady = pipeline(servers, OFFERED_PER_SEC, "steady");
      return new PipelineBenchReport(
          full.effectsPerSec,
          alone,
          full.writersPerSec,
          full.p50,
          full.p99,
          full.backlogGrowthPerSec,
          steady.writersPerSec,
          steady.p99,
          steady.backlogGrowthPerSec,
          window.toSeconds(),
          servers.database);
    }
  }

  /** The writers with nothing beside them: the rate the pipeline is compared with. */
  private double writersAlone(PostgresServer postgres) throws Exception {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_pipe_alone", WRITERS + 2)) {
      db.execute(OrderWriters.TABLE);
      OrderWriters.run(
          db.pool, WRITERS, warmUp, new ConcurrentHashMap<>(), new AtomicLong(), 0, "warm-", null);
      AtomicLong committed = new AtomicLong();
      OrderWriters.run(db.pool, WRITERS, window, new ConcurrentHashMap<>(), committed, 0, "", null);
      double perSec = committed.get() / seconds(window);
      say("writers alone: %.0f commits/s", perSec);
      return perSec;
    }
  }

  /** What one pipeline phase measured. */
  private record Phase(
      double writersPerSec,
      double effectsPerSec,
      double backlogGrowthPerSec,
      double p50,
      double p99) {}

  /**
   * Writers (paced to {@code ratePerSec}, or 0 for as fast as they can), relay and consumer on
   * fresh databases and a fresh topic; the measured window follows the warm-up.
   */
  private Phase pipeline(BenchServers servers, int ratePerSec, String name) throws Exception {
    String topic = "bench." + run + ".pipeline-" + name;
    servers.kafka.createTopic(topic, PARTITIONS);
    Map<UUID, Long> applied = new ConcurrentHashMap<>();
    try (BenchDatabase orders =
            new BenchDatabase(servers.postgres, "bench_pipe_orders", WRITERS + 4);
        BenchDatabase billingDb =
            new BenchDatabase(servers.postgres, "bench_pipe_billing", PipelineBilling.LANES + 2);
        KafkaTransport transport =
            KafkaTransport.builder()
                .bootstrapServers(servers.bootstrapServers())
                .clientProperties(kafkaClient)
                .source("/tandem/bench/orders")
                .topicRouter(TopicRouter.fixed(topic))
                .build()) {
      orders.execute(OrderWriters.TABLE);
      billingDb.execute(PipelineBilling.TABLE);
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(orders.pool)
              .transport(transport)
              .relayId("bench-pipeline-" + run)
              .build();
      try (PipelineBilling billing =
          new PipelineBilling(
              billingDb,
              servers.bootstrapServers(),
              kafkaClient,
              "bench-" + run + "-billing-" + name,
              topic,
              applied)) {
        relay.start();
        billing.start();
        return measure(orders, billing, applied, ratePerSec);
      } finally {
        relay.close();
      }
    }
  }

  /** The warm-up, then the measured window, then every event of the window waited for. */
  private Phase measure(
      BenchDatabase orders, PipelineBilling billing, Map<UUID, Long> applied, int ratePerSec)
      throws Exception {
    AtomicLong committed = new AtomicLong();
    OrderWriters.run(
        orders.pool,
        WRITERS,
        warmUp,
        new ConcurrentHashMap<>(),
        committed,
        ratePerSec,
        "warm-",
        null);
    long backlogBefore = committed.get() - billing.applied();
    long appliedBefore = billing.applied();
    Map<UUID, Long> commits = new ConcurrentHashMap<>();
    AtomicLong inWindow = new AtomicLong();
    OrderWriters.run(orders.pool, WRITERS, window, commits, inWindow, ratePerSec, "", null);
    long appliedAfter = billing.applied();
    long backlogAfter = committed.get() + inWindow.get() - appliedAfter;
    double secs = seconds(window);
    double writersPerSec = inWindow.get() / secs;
    // Sustained end to end: effects the consumer committed in the window, but no more than
    // the writers committed in it (a consumer still catching up on the warm-up's backlog
    // applies faster than the changes come, which is not a rate the pipeline sustains).
    double effectsPerSec = Math.min((appliedAfter - appliedBefore) / secs, writersPerSec);
    double growth = (backlogAfter - backlogBefore) / secs;
    billing.awaitApplied(committed.get() + inWindow.get());
    List<Double> latencies = new ArrayList<>(commits.size());
    commits.forEach(
        (id, at) -> {
          Long done = applied.get(id);
          if (done != null) {
            latencies.add((done - at) / 1e6);
          }
        });
    if (latencies.size() != commits.size()) {
      throw new IllegalStateException(
          "applied "
              + latencies.size()
              + " of the window's "
              + commits.size()
              + " events: an event was lost or applied twice");
    }
    Percentiles p = new Percentiles(latencies);
    say(
        "pipeline, writers %s: writers %.0f commits/s, effects %.0f/s, backlog %+.0f/s,"
            + " commit to effect p50 %.1f ms, p99 %.1f ms",
        ratePerSec == 0 ? "as fast as they can" : "offering " + ratePerSec + "/s",
        writersPerSec,
        effectsPerSec,
        growth,
        p.at(0.50),
        p.at(0.99));
    billing.checkOnce(committed.get() + inWindow.get());
    return new Phase(writersPerSec, effectsPerSec, growth, p.at(0.50), p.at(0.99));
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
