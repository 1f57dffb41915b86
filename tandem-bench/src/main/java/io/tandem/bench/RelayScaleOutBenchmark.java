package io.tandem.bench;

import io.tandem.kafka.KafkaClientProperties;
import io.tandem.outbox.OutboxStatus;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaBrokerProcess;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code tandem bench relay --instances 1,2,4}: for each count, that many relay processes ({@link
 * RelayInstanceMain}) on one database share the outbox's 64 partitions, then drain the same
 * backlog; then a steady load is offered and the commit-to-published latency read from the rows'
 * own timestamps. CPU time is read per process (each relay, the PostgreSQL server, the Kafka broker
 * process, this JVM) and for the whole machine, so that the report says where the time went.
 */
public final class RelayScaleOutBenchmark {
  private static final int AGGREGATES = 1_000;
  private static final int PARTITIONS = 64;

  private final List<Integer> instances;
  private final int events;
  private final int steadyRate;
  private final Duration steadyWindow;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  public RelayScaleOutBenchmark(
      List<Integer> instances,
      int events,
      boolean quick,
      String jdbcUrl,
      String kafkaBootstrap,
      PrintStream progress) {
    if (instances.isEmpty() || instances.stream().anyMatch(n -> n < 1 || n > 16)) {
      throw new IllegalArgumentException(
          "--instances must list relay counts between 1 and 16, for example 1,2,4; was "
              + instances);
    }
    if (events < 1_000 || events > 10_000_000) {
      throw new IllegalArgumentException("events must be between 1000 and 10000000, was " + events);
    }
    this.instances = List.copyOf(instances);
    this.events = events;
    this.steadyRate = 500;
    this.steadyWindow = Duration.ofSeconds(quick ? 5 : 10);
    this.jdbcUrl = jdbcUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /** Client settings (TLS, SASL) for the given Kafka; none for the embedded broker. */
  public RelayScaleOutBenchmark kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  public ScaleOutReport run() throws Exception {
    try (BenchServers servers = new BenchServers(jdbcUrl, kafkaBootstrap, kafkaClient)) {
      say("PostgreSQL: %s; Kafka: %s", servers.database, servers.bootstrapServers());
      Path logs = Files.createTempDirectory("tandem-bench-scale-");
      List<ScaleOutReport.Row> rows = new ArrayList<>();
      for (int n : instances) {
        rows.add(measure(servers.postgres, servers.kafka, servers.kafkaProcess, logs, n));
      }
      return new ScaleOutReport(
          rows, events, steadyRate, Runtime.getRuntime().availableProcessors(), servers.database);
    }
  }

  private ScaleOutReport.Row measure(
      PostgresServer postgres, KafkaBroker kafka, KafkaBrokerProcess kafkaProcess, Path logs, int n)
      throws Exception {
    String topic = "bench." + run + ".scale" + n;
    kafka.createTopic(topic, 8);
    try (BenchDatabase db = new BenchDatabase(postgres, "bench_scale" + n, 4)) {
      List<JvmProcess> relays = new ArrayList<>();
      try {
        for (int i = 0; i < n; i++) {
          relays.add(
              JvmProcess.start(
                  logs,
                  "relay-" + n + "-" + i,
                  BenchJvm.jitOptions(),
                  RelayInstanceMain.class.getName(),
                  JvmProcess.arguments()
                      .secret("TANDEM_BENCH_JDBC_URL", db.database.jdbcUrl())
                      .environment(
                          KafkaClientProperties.ENVIRONMENT_VARIABLE,
                          KafkaClientProperties.encode(kafkaClient))
                      .add(kafka.bootstrapServers(), topic, "scale-" + i)));
        }
        for (JvmProcess r : relays) {
          r.awaitOutput(RelayInstanceMain.READY, Duration.ofSeconds(60));
        }
        String leases = awaitShared(db, n);
        say("%d relay(s) share the partitions: %s", n, leases);
        long backend = backendPid(db);

        db.insertRange(0, events, AGGREGATES); // one commit: the backlog appears at once
        // sampled after the insert, as the drain clock starts: its cost is not the relays' work
        long[] before = ScaleOutRow.sampleCpu(relays, backend, kafkaProcess);
        long start = System.nanoTime();
        while (db.pending() > 0) {
          if (System.nanoTime() - start > TimeUnit.MINUTES.toNanos(20)) {
            throw new IllegalStateException(n + " relay(s) did not drain the backlog in 20 min");
          }
          TimeUnit.MILLISECONDS.sleep(20);
        }
        long drainNanos = System.nanoTime() - start;
        long[] after = ScaleOutRow.sampleCpu(relays, backend, kafkaProcess);
        String published = publishedPerRelay(db);
        double perSec = events / (drainNanos / 1e9);
        say("%d relay(s): %,.0f events/s (%s)", n, perSec, published);

        double[] latency =
            SteadyLoad.latencyMillis(db, events, steadyRate, steadyWindow, AGGREGATES);
        say(
            "%d relay(s) at %d events/s: p50 %.1f ms, p99 %.1f ms",
            n, steadyRate, latency[0], latency[1]);
        return new ScaleOutReport.Row(
            n,
            perSec,
            drainNanos / 1e6,
            leases,
            published,
            latency[0],
            latency[1],
            ScaleOutRow.cpuBetween(before, after));
      } finally {
        for (JvmProcess r : relays) {
          r.close();
        }
      }
    }
  }

  /** Waits until {@code n} relays hold leases and none holds more than its share. */
  private static String awaitShared(BenchDatabase db, int n) throws Exception {
    int share = (PARTITIONS + n - 1) / n;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    String last = "";
    while (System.nanoTime() < deadline) {
      List<Long> counts =
          db.operations.status().partitions().stream()
              .filter(OutboxStatus.Partition::owned)
              .collect(Collectors.groupingBy(OutboxStatus.Partition::owner, Collectors.counting()))
              .values()
              .stream()
              .sorted(Comparator.reverseOrder())
              .toList();
      last = counts.toString();
      long owned = counts.stream().mapToLong(Long::longValue).sum();
      if (counts.size() == n && owned == PARTITIONS && counts.get(0) <= share) {
        return join(counts);
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new IllegalStateException(
        n + " relays did not share the " + PARTITIONS + " partitions within 90 s: " + last);
  }

  private static String publishedPerRelay(BenchDatabase db) {
    return join(List.copyOf(db.operations.publishedByRelay().values()));
  }

  private static String join(List<Long> counts) {
    StringBuilder sb = new StringBuilder();
    for (long c : counts) {
      sb.append(sb.length() == 0 ? "" : "/").append(c);
    }
    return sb.toString();
  }

  private static long backendPid(BenchDatabase db) throws SQLException {
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
    }
  }

  /** The figures of one run; exposed for the CLI. */
  public record ScaleOutReport(
      List<Row> rows, int events, int steadyRate, int cores, String database) {

    /**
     * One relay count: throughput draining the backlog, partitions per relay at the start, rows
     * published per relay, latency at the steady rate, and CPU ms during the drain: each relay,
     * then PostgreSQL, the Kafka broker process (0 for a given cluster), this JVM, the machine.
     */
    public record Row(
        int instances,
        double perSec,
        double drainMs,
        String partitionsPerRelay,
        String publishedPerRelay,
        double p50Ms,
        double p99Ms,
        long[] cpuMs)
        implements ScaleOutRow {

      /** The row's figures for the JSON report, in order. */
      @Override
      public Map<String, Object> figures() {
        Map<String, Object> own = new LinkedHashMap<>();
        own.put("partitions_per_relay", "\"" + partitionsPerRelay + "\"");
        own.put("published_per_relay", "\"" + publishedPerRelay + "\"");
        return figures(own, "relays");
      }
    }

    /** Throughput of {@code instances} relays over that of the first count measured. */
    double speedup(Row row) {
      return ScaleOutRow.speedup(rows, row);
    }

    /** The machine's busy share during a drain: busy CPU ms / (drain ms × cores). */
    double machineBusy(Row row) {
      return row.machineBusy(cores);
    }

    public String toJson() {
      StringBuilder sb = new StringBuilder("{\"events\": ").append(events);
      sb.append(", \"steady_rate_per_s\": ").append(steadyRate);
      sb.append(", \"cores\": ").append(cores);
      sb.append(", \"database\": \"").append(database).append("\"");
      return ScaleOutRow.json(sb, rows, cores);
    }

    public String toTable() {
      StringBuilder sb = new StringBuilder();
      sb.append(
          String.format(
              Locale.ROOT,
              "%-9s %9s %7s %-16s %-24s %7s %7s %-22s %8s %7s %6s%n",
              "relays",
              "events/s",
              "speedup",
              "partitions",
              "published",
              "p50_ms",
              "p99_ms",
              "cpu_ms relays",
              "postgres",
              "kafka",
              "busy"));
      for (Row r : rows) {
        sb.append(
            String.format(
                Locale.ROOT,
                "%-9d %9.0f %7.2f %-16s %-24s %7.1f %7.1f %-22s %8d %7d %5.0f%%%n",
                r.instances(),
                r.perSec(),
                speedup(r),
                r.partitionsPerRelay(),
                r.publishedPerRelay(),
                r.p50Ms(),
                r.p99Ms(),
                r.instancesCpu(),
                r.postgresCpu(),
                r.kafkaCpu(),
                100 * machineBusy(r)));
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "%d events drained per count; latency at %d events/s offered; %d cores; %s%n",
              events,
              steadyRate,
              cores,
              database));
      return sb.toString();
    }
  }
}
