package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.Redaction;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Transactions;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
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
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The consumer benchmark, on Kafka and PostgreSQL. N events over many aggregates are published once
 * to a topic of 8 partitions; then each run reads them all with a fresh consumer group into a fresh
 * database and is timed from start to the last event's commit:
 *
 * <ol>
 *   <li>bare: a handler writing one business row per event in its own transaction, on the source's
 *       thread, acknowledging after the commit — the cheapest correct consumer;
 *   <li>bare batched: the same rows, written by one thread in batches of what has arrived (up to
 *       {@value #BATCH}, never waiting for a batch to fill) with one JDBC batch and one commit per
 *       batch, each message acknowledged after its batch's commit — the ceiling of a consumer that
 *       pays one commit per batch;
 *   <li>inbox: the same rows through {@link InboxProcessor} (ordering guard, inbox record) on a
 *       {@link ConsumerRunner} with one lane, batched as the bare batched consumer is (up to
 *       {@value #BATCH} of what has arrived, one transaction per batch) with a batch handler
 *       writing the rows in one JDBC batch;
 *   <li>single and parallel: the inbox with one lane, then with {@value #LANES} lanes.
 * </ol>
 *
 * <p>A warm-up run of each kind precedes the measured ones. PostgreSQL is the given server or an
 * embedded one with fsync on; Kafka is the given cluster or an embedded broker in a child process.
 */
public final class ConsumerBenchmark {
  static final int LANES = 8;
  static final int BATCH = 500;
  private static final int PARTITIONS = 8;
  private static final int AGGREGATES = 2_000;

  private static final String EFFECT_TABLE =
      "CREATE TABLE bench_effect (id bigserial PRIMARY KEY, account text NOT NULL,"
          + " version bigint NOT NULL, amount_cents bigint NOT NULL)";
  private static final String EFFECT_INSERT =
      "INSERT INTO bench_effect (account, version, amount_cents) VALUES (?, ?, ?)";

  private final int events;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  public ConsumerBenchmark(
      int events, String jdbcUrl, String kafkaBootstrap, PrintStream progress) {
    if (events < 1_000 || events > 5_000_000) {
      throw new IllegalArgumentException("events must be between 1000 and 5000000, was " + events);
    }
    this.events = events;
    this.jdbcUrl = jdbcUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /**
   * Client settings (TLS, SASL: {@code security.protocol}, {@code sasl.jaas.config}, ...) every
   * Kafka client of the benchmark gets, for the Kafka it was given; none by default.
   */
  public ConsumerBenchmark kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  public ConsumerBenchReport run() throws Exception {
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
      String topic = "bench." + run + ".consumer";
      KafkaBroker.external(bootstrap, kafkaClient).createTopic(topic, PARTITIONS);
      publish(bootstrap, topic);

      say("warming up");
      bare(postgres, bootstrap, topic, Math.min(events, 5_000));
      inbox(postgres, bootstrap, topic, 1, Math.min(events, 5_000));
      inbox(postgres, bootstrap, topic, LANES, Math.min(events, 5_000));

      bareBatched(postgres, bootstrap, topic, Math.min(events, 5_000));
      double bare = bare(postgres, bootstrap, topic, events);
      double bareBatched = bareBatched(postgres, bootstrap, topic, events);
      double inbox = inbox(postgres, bootstrap, topic, 1, events);
      double parallel = inbox(postgres, bootstrap, topic, LANES, events);
      double single = inbox(postgres, bootstrap, topic, 1, events);
      return new ConsumerBenchReport(
          events, inbox, bare, bareBatched, parallel, single, LANES, BATCH, database);
    }
  }

  private void publish(String bootstrap, String topic) {
    say("publishing %d events to %s (%d partitions)", events, topic, PARTITIONS);
    try (KafkaTransport kafka =
        KafkaTransport.builder()
            .bootstrapServers(bootstrap)
            .clientProperties(kafkaClient)
            .source("/tandem/bench")
            .topicRouter(TopicRouter.fixed(topic))
            .build()) {
      List<Event> batch = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        batch.add(
            Event.builder()
                .aggregate("Account", "acc-" + (i % AGGREGATES), i / AGGREGATES + 1)
                .eventType("Deposited")
                .payload(
                    "{\"accountId\":\"acc-"
                        + (i % AGGREGATES)
                        + "\",\"amountCents\":"
                        + (i % 10_000)
                        + ",\"currency\":\"EUR\"}")
                .build());
        if (batch.size() == 1_000 || i == events - 1) {
          for (PublishOutcome outcome : kafka.publish(batch, Duration.ofSeconds(60))) {
            if (!outcome.acknowledged()) {
              throw new IllegalStateException(
                  "publishing the benchmark's events failed", outcome.failure());
            }
          }
          batch.clear();
        }
      }
    }
  }

  private static void effect(Connection c, Event e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(EFFECT_INSERT)) {
      ps.setString(1, e.aggregateId());
      ps.setLong(2, e.aggregateVersion());
      ps.setLong(3, e.payload().length());
      ps.executeUpdate();
    }
  }

  /** The same rows as {@link #effect} for several events, in one JDBC batch. */
  private static void effects(Connection c, List<Event> events) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(EFFECT_INSERT)) {
      for (Event e : events) {
        ps.setString(1, e.aggregateId());
        ps.setLong(2, e.aggregateVersion());
        ps.setLong(3, e.payload().length());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** The bare consumer: one transaction per event on the source's thread, then the ack. */
  private double bare(PostgresServer postgres, String bootstrap, String topic, int count)
      throws Exception {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_bare", 2)) {
      db.execute(EFFECT_TABLE);
      AtomicLong done = new AtomicLong();
      DataSource ds = db.pool;
      MessageSource source = source(bootstrap, topic, "bare");
      long start = System.nanoTime();
      source.start(
          (InboundMessage m) -> {
            Event e = m.decode();
            try {
              Transactions.inTransaction(
                  ds,
                  c -> {
                    effect(c, e);
                    return null;
                  });
            } catch (SQLException failure) {
              throw new IllegalStateException("the bare handler failed", failure);
            }
            m.acknowledge();
            done.incrementAndGet();
            return true;
          });
      double rate = awaitCount(done::get, count, start);
      source.close();
      say("bare handler: %.0f events/s", rate);
      return rate;
    }
  }

  /**
   * The bare handler writing batch-wise: the source's thread queues each message; one writer thread
   * takes what has arrived (up to {@value #BATCH}), inserts the rows in one JDBC batch, commits
   * once, then acknowledges each message of the batch.
   */
  private double bareBatched(PostgresServer postgres, String bootstrap, String topic, int count)
      throws Exception {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_bare_batched", 2)) {
      db.execute(EFFECT_TABLE);
      AtomicLong done = new AtomicLong();
      BlockingQueue<InboundMessage> arrived = new ArrayBlockingQueue<>(4 * BATCH);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Exception> failed = new AtomicReference<>();
      Thread writer =
          new Thread(
              () -> {
                List<InboundMessage> batch = new ArrayList<>(BATCH);
                try {
                  while (!stop.get()) {
                    InboundMessage first = arrived.poll(50, TimeUnit.MILLISECONDS);
                    if (first == null) {
                      continue;
                    }
                    batch.add(first);
                    arrived.drainTo(batch, BATCH - 1);
                    List<Event> events = new ArrayList<>(batch.size());
                    for (InboundMessage m : batch) {
                      events.add(m.decode());
                    }
                    Transactions.inTransaction(
                        db.pool,
                        c -> {
                          try (PreparedStatement ps = c.prepareStatement(EFFECT_INSERT)) {
                            for (Event e : events) {
                              ps.setString(1, e.aggregateId());
                              ps.setLong(2, e.aggregateVersion());
                              ps.setLong(3, e.payload().length());
                              ps.addBatch();
                            }
                            ps.executeBatch();
                          }
                          return null;
                        });
                    batch.forEach(InboundMessage::acknowledge);
                    done.addAndGet(batch.size());
                    batch.clear();
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (Exception e) {
                  failed.set(e);
                }
              },
              "bench-bare-batched-writer");
      MessageSource source = source(bootstrap, topic, "bare-batched");
      long start = System.nanoTime();
      writer.start();
      source.start(
          m -> {
            arrived.put(m);
            return true;
          });
      double rate;
      try {
        rate =
            awaitCount(
                () -> {
                  if (failed.get() != null) {
                    throw new IllegalStateException("the bare batched writer failed", failed.get());
                  }
                  return done.get();
                },
                count,
                start);
      } finally {
        source.close();
        stop.set(true);
        writer.join(10_000);
      }
      say("bare handler, batched: %.0f events/s", rate);
      return rate;
    }
  }

  /** The inbox on a runner with {@code lanes} lanes. */
  private double inbox(
      PostgresServer postgres, String bootstrap, String topic, int lanes, int count)
      throws Exception {
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_inbox", lanes + 2)) {
      db.execute(EFFECT_TABLE);
      InboxProcessor processor =
          InboxProcessor.builder()
              .dataSource(db.pool)
              .consumer("bench")
              .onBatch("Deposited", ConsumerBenchmark::effects)
              .build();
      ConsumerRunner runner =
          ConsumerRunner.builder()
              .source(source(bootstrap, topic, "inbox" + lanes))
              .processor(processor)
              .concurrency(lanes)
              .maxBatch(BATCH)
              .maxInFlight(4 * BATCH)
              .build();
      long start = System.nanoTime();
      runner.start();
      double rate =
          awaitCount(() -> processor.appliedCount() + processor.duplicateCount(), count, start);
      runner.close();
      say("inbox, %d lane(s): %.0f events/s", lanes, rate);
      if (processor.duplicateCount() > 0 || processor.deadLetteredCount() > 0) {
        say(
            "  (%d duplicates, %d dead letters)",
            processor.duplicateCount(), processor.deadLetteredCount());
      }
      return rate;
    }
  }

  private MessageSource source(String bootstrap, String topic, String kind) {
    return KafkaMessageSource.builder()
        .bootstrapServers(bootstrap)
        .clientProperties(kafkaClient)
        .groupId("bench-" + run + "-" + kind + "-" + System.nanoTime())
        .topics(List.of(topic))
        .consumerProperty("max.poll.records", "1000")
        .build();
  }

  private static double awaitCount(LongSupplier done, int count, long start) throws Exception {
    long deadline = start + TimeUnit.MINUTES.toNanos(30);
    while (done.getAsLong() < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "consumed " + done.getAsLong() + " of " + count + " in 30 min");
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    return count / ((System.nanoTime() - start) / 1e9);
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
