package io.tandem.bench;

import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaTransport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

/**
 * The consumer benchmark, on Kafka and PostgreSQL. N events over many aggregates are published once
 * to a topic of 8 partitions; then each run reads them all with a fresh consumer group into a fresh
 * database and is timed from start to the last event's commit ({@link ConsumerBareRuns}, {@link
 * ConsumerInboxRuns}):
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
 *   <li>single and parallel: the inbox with one lane, then with {@value #LANES} lanes;
 *   <li>latency: the one-lane inbox on an empty topic while {@value #STEADY_RATE} events/s are
 *       published, one request whenever events are due; from each event's hand-over to the producer
 *       to the consumer's commit, over every event of the window ({@link #STEADY_WINDOW}, after
 *       {@link #STEADY_WARM_UP} of the same load).
 * </ol>
 *
 * <p>A warm-up run of each kind precedes the measured ones. PostgreSQL is the given server or an
 * embedded one with fsync on; Kafka is the given cluster or an embedded broker in a child process.
 */
public final class ConsumerBenchmark {
  static final int LANES = 8;
  static final int BATCH = 500;
  static final int STEADY_RATE = 1_000;
  static final Duration STEADY_WARM_UP = Duration.ofSeconds(3);
  static final Duration STEADY_WINDOW = Duration.ofSeconds(10);
  static final int PARTITIONS = 8;

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
    try (BenchServers servers = new BenchServers(jdbcUrl, kafkaBootstrap, kafkaClient)) {
      ConsumerSetup setup =
          new ConsumerSetup(
              servers.postgres, servers.bootstrapServers(), kafkaClient, run, progress);
      setup.say(
          "PostgreSQL: %s; Kafka: %s; JIT: %s",
          servers.database, setup.bootstrap(), BenchJvm.describe());
      String topic = "bench." + run + ".consumer";
      servers.kafka.createTopic(topic, PARTITIONS);
      setup.say("publishing %d events to %s (%d partitions)", events, topic, PARTITIONS);
      try (KafkaTransport kafka = ConsumerEvents.transport(setup.bootstrap(), kafkaClient, topic)) {
        ConsumerEvents.backlog(kafka, events);
      }
      ConsumerBareRuns bareRuns = new ConsumerBareRuns(setup);
      ConsumerInboxRuns inboxRuns = new ConsumerInboxRuns(setup, BATCH);

      setup.say("warming up");
      int warm = Math.min(events, 5_000);
      bareRuns.bare(topic, warm);
      inboxRuns.throughput(topic, 1, warm);
      inboxRuns.throughput(topic, LANES, warm);
      bareRuns.bareBatched(topic, warm, BATCH);

      double bare = bareRuns.bare(topic, events);
      double bareBatched = bareRuns.bareBatched(topic, events, BATCH);
      double inbox = inboxRuns.throughput(topic, 1, events);
      double parallel = inboxRuns.throughput(topic, LANES, events);
      double single = inboxRuns.throughput(topic, 1, events);

      String steadyTopic = "bench." + run + ".consumer-steady";
      servers.kafka.createTopic(steadyTopic, PARTITIONS);
      double[] latency =
          inboxRuns.latency(steadyTopic, 1, STEADY_RATE, STEADY_WARM_UP, STEADY_WINDOW);
      return new ConsumerBenchReport(
          events,
          inbox,
          bare,
          bareBatched,
          parallel,
          single,
          latency[0],
          latency[1],
          LANES,
          BATCH,
          servers.database);
    }
  }
}
