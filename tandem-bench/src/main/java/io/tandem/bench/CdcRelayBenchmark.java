package io.tandem.bench;

import io.tandem.cdc.CdcOperations;
import io.tandem.cdc.CdcRelay;
import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code tandem bench relay --mode cdc}: the CDC relay (Debezium on PostgreSQL's WAL) against the
 * polling relay on the same work in the same run, each on a fresh database of one server: the same
 * events committed 1,000 per transaction, timed from the first commit until every row is marked
 * published; then the same steady load of single-event commits at 1,000 events/s offered, with its
 * commit-to-ack p50/p99 ({@code *_p50_ms}, {@code *_p99_ms}: from the writer's clock after its
 * commit returned to the broker's acknowledgement, seen by a {@link TimingTransport} around each
 * relay's transport, as {@code bench relay} measures the polling relay) and its commit-to-published
 * p50/p99 from the rows' own timestamps ({@code *_marked_p50_ms}, {@code *_marked_p99_ms}: when the
 * relay marked the row, after the ack). Last, the writers' cost: {@value #WRITERS} service writers
 * (business row + outbox row per commit, as fast as they can) alone, then beside each relay, each
 * run on a fresh database; {@code polling_writer_ratio} and {@code cdc_writer_ratio} are their
 * commits/s beside the relay over alone. Both relays publish to the same Kafka with the same
 * transport settings, run in this JVM, and mark rows published after the broker's ack.
 */
public final class CdcRelayBenchmark {
  private static final int AGGREGATES = 1_000;
  private static final int CHUNK = 1_000;
  private static final int STEADY_RATE = 1_000;
  private static final int WRITERS = 4;

  private final int events;
  private final Duration steadyWindow;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  public CdcRelayBenchmark(
      int events, boolean quick, String jdbcUrl, String kafkaBootstrap, PrintStream progress) {
    if (events < 1_000 || events > 10_000_000) {
      throw new IllegalArgumentException("events must be between 1000 and 10000000, was " + events);
    }
    this.events = events;
    this.steadyWindow = Duration.ofSeconds(quick ? 5 : 10);
    this.jdbcUrl = jdbcUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /** Client settings (TLS, SASL) for the given Kafka; none for the embedded broker. */
  public CdcRelayBenchmark kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  /** The figures of one run, in their order (values are JSON literals). */
  public record Report(Map<String, Object> figures) {
    public String toJson() {
      return BenchOutput.json(figures);
    }

    public String toTable() {
      return BenchOutput.table(figures, 20);
    }
  }

  public Report run() throws Exception {
    try (BenchServers servers = new BenchServers(jdbcUrl, kafkaBootstrap, kafkaClient, true)) {
      requireLogical(servers);
      say("PostgreSQL: %s; Kafka: %s", servers.database, servers.bootstrapServers());
      double[] polling = measure(servers, false);
      double[] cdc = measure(servers, true);
      double alone = writers(servers, "alone");
      double besidePolling = writers(servers, "polling");
      double besideCdc = writers(servers, "cdc");
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("events", events);
      f.put("polling_per_s", Math.round(polling[0]));
      f.put("cdc_per_s", Math.round(cdc[0]));
      f.put("cdc_vs_polling", format(cdc[0] / polling[0], 2));
      f.put("steady_rate_per_s", STEADY_RATE);
      f.put("polling_p50_ms", format(polling[1], 1));
      f.put("polling_p99_ms", format(polling[2], 1));
      f.put("cdc_p50_ms", format(cdc[1], 1));
      f.put("cdc_p99_ms", format(cdc[2], 1));
      f.put("polling_marked_p50_ms", format(polling[3], 1));
      f.put("polling_marked_p99_ms", format(polling[4], 1));
      f.put("cdc_marked_p50_ms", format(cdc[3], 1));
      f.put("cdc_marked_p99_ms", format(cdc[4], 1));
      f.put("writers_alone_per_s", Math.round(alone));
      f.put("polling_writer_ratio", format(besidePolling / alone, 3));
      f.put("cdc_writer_ratio", format(besideCdc / alone, 3));
      f.put("database", "\"" + servers.database + "\"");
      return new Report(f);
    }
  }

  private double[] measure(BenchServers servers, boolean cdc) throws Exception {
    String name = cdc ? "cdc" : "polling";
    String topic = "bench." + run + "." + name;
    servers.kafka.createTopic(topic, 6);
    try (BenchDatabase db = new BenchDatabase(servers.postgres, "bench_" + name, 4);
        TimingTransport kafka =
            new TimingTransport(
                KafkaTransport.builder()
                    .bootstrapServers(servers.bootstrapServers())
                    .clientProperties(kafkaClient)
                    .source("/tandem/bench")
                    .topicRouter(TopicRouter.fixed(topic))
                    .build())) {
      AutoCloseable relay = cdc ? startCdc(db, kafka, "") : startPolling(db, kafka);
      try {
        long start = System.nanoTime();
        for (long from = 0; from < events; from += CHUNK) {
          db.insertRange(from, Math.min(events, from + CHUNK), AGGREGATES);
        }
        long deadline = start + TimeUnit.MINUTES.toNanos(20);
        while (db.pending() > 0) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the " + name + " relay did not publish in 20 min");
          }
          TimeUnit.MILLISECONDS.sleep(20);
        }
        double perSec = events / ((System.nanoTime() - start) / 1e9);
        double[] latency =
            SteadyLoad.latencyMillis(db, events, STEADY_RATE, steadyWindow, AGGREGATES, kafka);
        say(
            "%s relay: %,.0f events/s; at %d events/s commit-to-ack p50 %.1f ms, p99 %.1f ms;"
                + " commit-to-marked-published p50 %.1f ms, p99 %.1f ms",
            name, perSec, STEADY_RATE, latency[0], latency[1], latency[2], latency[3]);
        return new double[] {perSec, latency[0], latency[1], latency[2], latency[3]};
      } finally {
        relay.close();
      }
    }
  }

  private static AutoCloseable startPolling(BenchDatabase db, Transport kafka) {
    OutboxRelay relay =
        OutboxRelay.builder().dataSource(db.pool).transport(kafka).relayId("bench-polling").build();
    relay.start();
    return relay::close;
  }

  /**
   * {@value #WRITERS} writers as fast as they can for the steady window on a fresh database: {@code
   * beside} "alone", or beside the "polling" or "cdc" relay publishing what they commit.
   *
   * @return the writers' commits/s
   */
  private double writers(BenchServers servers, String beside) throws Exception {
    String topic = "bench." + run + ".writers-" + beside;
    servers.kafka.createTopic(topic, 6);
    try (BenchDatabase db = new BenchDatabase(servers.postgres, "bench_w_" + beside, WRITERS + 4);
        Transport kafka =
            KafkaTransport.builder()
                .bootstrapServers(servers.bootstrapServers())
                .clientProperties(kafkaClient)
                .source("/tandem/bench")
                .topicRouter(TopicRouter.fixed(topic))
                .build()) {
      db.execute(OrderWriters.TABLE);
      AutoCloseable relay =
          switch (beside) {
            case "polling" -> startPolling(db, kafka);
            case "cdc" -> startCdc(db, kafka, "_w");
            default -> () -> {};
          };
      try {
        AtomicLong committed = new AtomicLong();
        OrderWriters.run(
            db.pool, WRITERS, steadyWindow, new ConcurrentHashMap<>(), committed, 0, "", null);
        double perSec = committed.get() / (steadyWindow.toNanos() / 1e9);
        long unpublished = db.pending(); // beside a relay: what it had not published yet
        say(
            "writers %s: %,.0f commits/s (%,d committed, %,d not yet published at the end)",
            beside.equals("alone") ? "alone" : "beside the " + beside + " relay",
            perSec,
            committed.get(),
            unpublished);
        return perSec;
      } finally {
        relay.close();
      }
    }
  }

  private AutoCloseable startCdc(BenchDatabase db, Transport kafka, String slotSuffix)
      throws Exception {
    String slot = "bench_cdc_" + run + slotSuffix;
    CdcRelay relay =
        CdcRelay.builder()
            .jdbcUrl(db.database.jdbcUrl())
            .dataSource(db.pool)
            .transport(kafka)
            .slotName(slot)
            .relayId("bench-cdc")
            .build();
    relay.start();
    return () -> {
      relay.close();
      dropSlot(db, slot);
    };
  }

  /** Drops the run's slot once the closed relay's stream has let go of it (within 20 s). */
  private static void dropSlot(BenchDatabase db, String slot) throws InterruptedException {
    if (!new CdcOperations(db.pool).dropSlotOnceReleased(slot, Duration.ofSeconds(20))) {
      throw new IllegalStateException("replication slot " + slot + " still active after 20 s");
    }
  }

  private static void requireLogical(BenchServers servers) {
    new CdcOperations(servers.postgres.dataSource())
        .streamingUnavailable()
        .ifPresent(
            reason -> {
              throw new IllegalArgumentException(
                  "bench relay --mode cdc cannot stream from "
                      + servers.database
                      + ": "
                      + reason
                      + "; or leave out --jdbc-url for an embedded PostgreSQL");
            });
  }

  static String format(double value, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
    }
  }
}
