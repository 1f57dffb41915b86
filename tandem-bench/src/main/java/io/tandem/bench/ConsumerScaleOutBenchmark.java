package io.tandem.bench;

import io.tandem.inbox.ConsumerRunner;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaTransport;
import io.tandem.testkit.JvmProcess;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code tandem bench consumer --instances 1,2,4}: for each count, a consumer group of that many
 * consumer processes ({@link ConsumerInstanceMain}, the batched inbox with {@value #LANES} lanes
 * each) on a fresh topic of {@value #PARTITIONS} partitions and a fresh database. Once the group
 * has shared the partitions, the events are published at once and timed until the last one's effect
 * is committed; then {@value #STEADY_RATE} events/s are offered for a window and the latency from
 * an event's hand-over to the producer to its consumer's commit is read from every process. CPU
 * time is read per process (each consumer, the PostgreSQL server, the Kafka broker process, this
 * JVM, which publishes) and for the whole machine, so that the report says where the time went.
 * Every run checks that each event has exactly one effect.
 */
public final class ConsumerScaleOutBenchmark {
  static final int PARTITIONS = 8;
  static final int LANES = ConsumerRunner.DEFAULT_CONCURRENCY;
  static final int STEADY_RATE = 1_000;
  private static final Duration STEADY_WINDOW = Duration.ofSeconds(10);

  private final List<Integer> instances;
  private final int events;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  public ConsumerScaleOutBenchmark(
      List<Integer> instances,
      int events,
      String jdbcUrl,
      String kafkaBootstrap,
      PrintStream progress) {
    if (instances.isEmpty() || instances.stream().anyMatch(n -> n < 1 || n > PARTITIONS)) {
      throw new IllegalArgumentException(
          "--instances must list consumer counts between 1 and "
              + PARTITIONS
              + " (the topic's partitions), for example 1,2,4; was "
              + instances);
    }
    if (events < 1_000 || events > 5_000_000) {
      throw new IllegalArgumentException("events must be between 1000 and 5000000, was " + events);
    }
    this.instances = List.copyOf(instances);
    this.events = events;
    this.jdbcUrl = jdbcUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /** Client settings (TLS, SASL) for the given Kafka; none for the embedded broker. */
  public ConsumerScaleOutBenchmark kafkaClientProperties(Map<String, String> properties) {
    this.kafkaClient = Map.copyOf(properties);
    return this;
  }

  public ConsumerScaleOutReport run() throws Exception {
    try (BenchServers servers = new BenchServers(jdbcUrl, kafkaBootstrap, kafkaClient)) {
      say("PostgreSQL: %s; Kafka: %s", servers.database, servers.bootstrapServers());
      Path logs = Files.createTempDirectory("tandem-bench-consumers-");
      List<ConsumerScaleOutReport.Row> rows = new ArrayList<>();
      for (int n : instances) {
        rows.add(measure(servers, logs, n));
      }
      return new ConsumerScaleOutReport(
          rows,
          events,
          STEADY_RATE,
          LANES,
          Runtime.getRuntime().availableProcessors(),
          servers.database);
    }
  }

  private ConsumerScaleOutReport.Row measure(BenchServers servers, Path logs, int n)
      throws Exception {
    String topic = "bench." + run + ".consumers" + n;
    String group = "bench-" + run + "-consumers" + n;
    servers.kafka.createTopic(topic, PARTITIONS);
    List<String> names = new ArrayList<>();
    List<Path> latencyFiles = new ArrayList<>();
    try (BenchDatabase db = new BenchDatabase(servers.postgres, "bench_consumers" + n, 4);
        KafkaTransport kafka =
            ConsumerEvents.transport(servers.bootstrapServers(), kafkaClient, topic);
        ConsumerGroupView view =
            new ConsumerGroupView(servers.bootstrapServers(), kafkaClient, group)) {
      db.execute(ConsumerEffects.TABLE);
      long published = System.nanoTime();
      ConsumerEvents.backlog(kafka, events);
      double publishMs = (System.nanoTime() - published) / 1e6;
      say("%d consumer(s): %d events published in %.0f ms", n, events, publishMs);
      Path gate = logs.resolve("gate-" + n);
      List<JvmProcess> consumers = new ArrayList<>();
      try {
        for (int i = 0; i < n; i++) {
          names.add("consumer-" + n + "-" + i);
          latencyFiles.add(logs.resolve(names.get(i) + ".latency"));
          consumers.add(
              start(logs, db, servers, topic, group, names.get(i), latencyFiles.get(i), gate));
        }
        for (JvmProcess c : consumers) {
          c.awaitOutput(ConsumerInstanceMain.READY, Duration.ofSeconds(60));
        }
        long backend = db.count("SELECT pg_backend_pid()");
        long[] before = ScaleOutRow.sampleCpu(consumers, backend, servers.kafkaProcess);
        long start = System.nanoTime();
        Files.createFile(gate); // the consumers join their group and drain the topic
        awaitEffects(db, events, n + " consumer(s)");
        long drainNanos = System.nanoTime() - start;
        long[] after = ScaleOutRow.sampleCpu(consumers, backend, servers.kafkaProcess);
        double spanMs =
            db.count(
                "SELECT round(extract(epoch FROM max(applied_at) - min(applied_at)) * 1000)"
                    + " FROM bench_effect");
        double perSec = events / (Math.max(1, spanMs) / 1e3);
        String applied = appliedPer(db, names);
        String partitions = view.awaitShared(names, PARTITIONS, Duration.ofSeconds(90));
        say(
            "%d consumer(s): %,.0f events/s from the first effect to the last, %,.0f ms from the"
                + " start (partitions %s, effects %s)",
            n, perSec, drainNanos / 1e6, partitions, applied);

        long steady =
            ConsumerEvents.steady(
                kafka, "st-", 0, STEADY_RATE, STEADY_WINDOW, ConsumerEvents.STEADY_TYPE);
        awaitEffects(db, events + steady, n + " consumer(s) at the steady rate");
        checkOnce(db, events + steady);
        for (JvmProcess c : consumers) {
          c.close(); // SIGTERM: each writes its latencies
        }
        Percentiles latency = latencies(latencyFiles, steady);
        say(
            "%d consumer(s) at %d events/s: p50 %.1f ms, p99 %.1f ms",
            n, STEADY_RATE, latency.at(0.50), latency.at(0.99));
        return new ConsumerScaleOutReport.Row(
            n,
            perSec,
            drainNanos / 1e6,
            publishMs,
            partitions,
            applied,
            latency.at(0.50),
            latency.at(0.99),
            ScaleOutRow.cpuBetween(before, after));
      } finally {
        for (JvmProcess c : consumers) {
          c.close();
        }
      }
    }
  }

  private JvmProcess start(
      Path logs,
      BenchDatabase db,
      BenchServers servers,
      String topic,
      String group,
      String name,
      Path latencyFile,
      Path gate) {
    return JvmProcess.start(
        logs,
        name,
        BenchJvm.jitOptions(),
        ConsumerInstanceMain.class.getName(),
        JvmProcess.arguments()
            .secret("TANDEM_BENCH_JDBC_URL", db.database.jdbcUrl())
            .environment(
                KafkaClientProperties.ENVIRONMENT_VARIABLE,
                KafkaClientProperties.encode(kafkaClient))
            .add(servers.bootstrapServers(), topic, group, name)
            .add(Integer.toString(LANES), Integer.toString(ConsumerBenchmark.BATCH))
            .add(latencyFile.toString(), gate.toString()));
  }

  private static void awaitEffects(BenchDatabase db, long total, String who) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
    while (db.count("SELECT count(*) FROM bench_effect") < total) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(who + " did not apply " + total + " events in 20 min");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /** Effects per consumer, in the order of {@code names}. */
  private static String appliedPer(BenchDatabase db, List<String> names) throws SQLException {
    Map<String, Long> counts = new HashMap<>();
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT applied_by, count(*) FROM bench_effect GROUP BY applied_by")) {
      while (rs.next()) {
        counts.put(rs.getString(1), rs.getLong(2));
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String name : names) {
      sb.append(sb.length() == 0 ? "" : "/").append(counts.getOrDefault(name, 0L));
    }
    return sb.toString();
  }

  /** Each event has exactly one effect, whichever consumer of the group applied it. */
  private static void checkOnce(BenchDatabase db, long total) throws SQLException {
    long rows = db.count("SELECT count(*) FROM bench_effect");
    long distinct =
        db.count("SELECT count(*) FROM (SELECT DISTINCT account, version FROM bench_effect) d");
    if (rows != total || distinct != total) {
      throw new IllegalStateException(
          "published " + total + " events but found " + rows + " effects of " + distinct);
    }
  }

  /** Every steady event's latency, from the consumers' files; all of them must be there. */
  private static Percentiles latencies(List<Path> files, long expected) throws Exception {
    List<Double> millis = new ArrayList<>();
    for (Path f : files) {
      for (String line : Files.readAllLines(f)) {
        if (!line.isBlank()) {
          millis.add(Long.parseLong(line.trim()) / 1e3);
        }
      }
    }
    if (millis.size() != expected) {
      throw new IllegalStateException(
          "the consumers measured " + millis.size() + " of the " + expected + " steady events");
    }
    return new Percentiles(millis);
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
