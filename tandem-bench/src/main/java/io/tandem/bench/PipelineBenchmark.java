package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.Redaction;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaBrokerProcess;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The whole pipeline on one machine: {@value #WRITERS} writer threads commit a business row and an
 * outbox row on one PostgreSQL database, the relay publishes to Kafka, and a consumer applies each
 * event through the inbox (ordering guard, inbox record, effect row) into a second database on the
 * same server. Measured in one run, each phase on fresh databases and a fresh topic:
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
  static final int LANES = 8;
  static final int PARTITIONS = 8;
  static final int OFFERED_PER_SEC = 1_000;
  static final Duration WARM_UP = Duration.ofSeconds(10);
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

  private static final String EFFECT_TABLE =
      "CREATE TABLE bench_invoice (id bigserial PRIMARY KEY, order_id text NOT NULL,"
          + " total_cents bigint NOT NULL)";
  private static final String EFFECT_INSERT =
      "INSERT INTO bench_invoice (order_id, total_cents) VALUES (?, ?)";

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
    try (PostgresServer postgres =
            jdbcUrl == null
                ? PostgresServer.embedded().durable(true).start()
                : PostgresServer.external(jdbcUrl);
        KafkaBrokerProcess kafkaProcess =
            kafkaBootstrap == null ? KafkaBrokerProcess.start(BenchJvm.brokerOptions()) : null) {
      String bootstrap = kafkaProcess != null ? kafkaProcess.bootstrapServers() : kafkaBootstrap;
      String database =
          postgres.isEmbedded() ? "embedded PostgreSQL (fsync on)" : Redaction.redact(jdbcUrl);
      say("PostgreSQL: %s; Kafka: %s; JIT: %s", database, bootstrap, BenchJvm.describe());
      double alone = writersAlone(postgres);
      Phase full = pipeline(postgres, bootstrap, 0, "full");
      Phase steady = pipeline(postgres, bootstrap, OFFERED_PER_SEC, "steady");
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
          database);
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
  private Phase pipeline(PostgresServer postgres, String bootstrap, int ratePerSec, String name)
      throws Exception {
    String topic = "bench." + run + ".pipeline-" + name;
    KafkaBroker.external(bootstrap, kafkaClient).createTopic(topic, PARTITIONS);
    Map<UUID, Long> applied = new ConcurrentHashMap<>();
    try (BenchDatabase orders = new BenchDatabase(postgres, "bench_pipe_orders", WRITERS + 4);
        BenchDatabase billing = new BenchDatabase(postgres, "bench_pipe_billing", LANES + 2);
        KafkaTransport transport =
            KafkaTransport.builder()
                .bootstrapServers(bootstrap)
                .clientProperties(kafkaClient)
                .source("/tandem/bench/orders")
                .topicRouter(TopicRouter.fixed(topic))
                .build()) {
      orders.execute(OrderWriters.TABLE);
      billing.execute(EFFECT_TABLE);
      InboxProcessor processor =
          InboxProcessor.builder()
              .dataSource(billing.pool)
              .consumer("billing")
              .on("OrderPlaced", (Connection c, Event e) -> invoice(c, e))
              // After each message's commit (once per message, also in a batch).
              .afterCommit(
                  (e, outcome) -> {
                    if (outcome == Outcome.APPLIED) {
                      applied.put(e.eventId(), System.nanoTime());
                    }
                  })
              .build();
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(orders.pool)
              .transport(transport)
              .relayId("bench-pipeline-" + run)
              .build();
      ConsumerRunner runner =
          ConsumerRunner.builder()
              .source(
                  KafkaMessageSource.builder()
                      .bootstrapServers(bootstrap)
                      .clientProperties(kafkaClient)
                      .groupId("bench-" + run + "-billing-" + name)
                      .topics(List.of(topic))
                      .consumerProperty("max.poll.records", "1000")
                      .build())
              .processor(processor)
              .concurrency(LANES)
              .build();
      relay.start();
      runner.start();
      try {
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
        long backlogBefore = committed.get() - processor.appliedCount();
        long appliedBefore = processor.appliedCount();
        Map<UUID, Long> commits = new ConcurrentHashMap<>();
        AtomicLong inWindow = new AtomicLong();
        OrderWriters.run(orders.pool, WRITERS, window, commits, inWindow, ratePerSec, "", null);
        long appliedAfter = processor.appliedCount();
        long backlogAfter = committed.get() + inWindow.get() - appliedAfter;
        double secs = seconds(window);
        double writersPerSec = inWindow.get() / secs;
        // Sustained end to end: effects the consumer committed in the window, but no more than
        // the writers committed in it (a consumer still catching up on the warm-up's backlog
        // applies faster than the changes come, which is not a rate the pipeline sustains).
        double effectsPerSec = Math.min((appliedAfter - appliedBefore) / secs, writersPerSec);
        double growth = (backlogAfter - backlogBefore) / secs;
        awaitApplied(processor, committed.get() + inWindow.get());
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
        checkOnce(processor, billing, committed.get() + inWindow.get());
        return new Phase(writersPerSec, effectsPerSec, growth, p.at(0.50), p.at(0.99));
      } finally {
        runner.close();
        relay.close();
      }
    }
  }

  private static void invoice(Connection c, Event e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(EFFECT_INSERT)) {
      ps.setString(1, e.aggregateId());
      ps.setLong(2, e.payload().length());
      ps.executeUpdate();
    }
  }

  /** Waits until the consumer applied {@code total} events, showing progress. */
  private void awaitApplied(InboxProcessor processor, long total) throws InterruptedException {
    long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
    while (processor.appliedCount() < total) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the consumer applied "
                + processor.appliedCount()
                + " of "
                + total
                + " events within "
                + DRAIN_TIMEOUT.toMinutes()
                + " min");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /** Every committed order has exactly one invoice, and the inbox saw no duplicate effect. */
  private static void checkOnce(InboxProcessor processor, BenchDatabase billing, long total)
      throws SQLException {
    long invoices = billing.count("SELECT count(*) FROM bench_invoice");
    long orders = billing.count("SELECT count(DISTINCT order_id) FROM bench_invoice");
    if (invoices != total || orders != total || processor.appliedCount() != total) {
      throw new IllegalStateException(
          "committed "
              + total
              + " orders but billing holds "
              + invoices
              + " invoices for "
              + orders
              + " orders ("
              + processor.appliedCount()
              + " applied)");
    }
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
