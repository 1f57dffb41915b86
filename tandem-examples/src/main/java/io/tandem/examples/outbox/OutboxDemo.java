package io.tandem.examples.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxOperations;
import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Runs the outbox reference flow end to end and checks it from the databases.
 *
 * <p>First the crash: the order service confirms a batch of orders, one relay alone publishes it
 * and is killed right after the broker's acknowledgement, before it marks the batch published. Its
 * partitions' leases expire and the healthy relays publish the batch again: real duplicates reach
 * billing, and its inbox must absorb them. Then the measured run: N orders confirmed by 4 writers,
 * published by the healthy relays, applied by billing through its inbox, each commit-to-invoice
 * latency recorded.
 */
public final class OutboxDemo {
  /** Orders each killed relay publishes and never marks: one relay batch. */
  static final int CRASH_BATCH = 100;

  /** Billing's lanes: one per partition of the demo's topic. */
  private static final int CONSUMER_LANES = 3;

  /** Where the demo's progress lines go. */
  @FunctionalInterface
  interface Say {
    void say(String format, Object... args);
  }

  private final DemoSettings settings;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String runId =
      Long.toString(System.currentTimeMillis(), 36) + ThreadLocalRandom.current().nextInt(1000);

  public OutboxDemo(DemoSettings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /**
   * Client settings (TLS, SASL) every Kafka client of the demo gets for the Kafka of {@code
   * kafkaBootstrap}, its child processes through their environment; none by default. Never printed.
   */
  public OutboxDemo kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  /** Runs the demo; every server and database it started or created is gone afterwards. */
  public DemoReport run() throws Exception {
    long start = System.nanoTime();
    say(
        "starting PostgreSQL (%s) and Kafka (%s)",
        settings.jdbcUrl() == null ? "embedded" : "external",
        settings.kafkaBootstrap() == null ? "embedded" : settings.kafkaBootstrap());
    try (PostgresServer postgres =
            settings.jdbcUrl() == null
                ? PostgresServer.embedded().start()
                : PostgresServer.external(settings.jdbcUrl());
        KafkaBroker kafka =
            settings.kafkaBootstrap() == null
                ? KafkaBroker.embedded().start()
                : KafkaBroker.external(settings.kafkaBootstrap(), kafkaClient)) {
      long serversMillis = millisSince(start);
      try (IsolatedDatabase ordersDb = postgres.createDatabase("tandem_demo_orders");
          IsolatedDatabase billingDb = postgres.createDatabase("tandem_demo_billing");
          HikariDataSource orders =
              pool(
                  ordersDb,
                  "orders",
                  settings.writers() + settings.relays() + settings.relayCrashes() + 2);
          HikariDataSource billing = pool(billingDb, "billing", 4)) {
        return run(kafka, orders, billing, start, serversMillis);
      }
    }
  }

  private DemoReport run(
      KafkaBroker kafka, DataSource ordersDs, DataSource billingDs, long start, long serversMillis)
      throws Exception {
    Migrations.migrate(ordersDs);
    Migrations.migrate(billingDs);
    OrderService orders = new OrderService(ordersDs);
    orders.createSchema();
    int crashOrders = settings.relayCrashes() == 0 ? 0 : CRASH_BATCH;
    orders.createPendingOrders(crashOrders + settings.orders());
    String topic = "tandem.demo." + runId + ".order";
    kafka.createTopic(topic, 3);
    List<OutboxRelay> relays = new ArrayList<>();
    long startupMillis;
    long runStart;
    long recoveryMillis = 0;
    try (OrderWriters writers = new OrderWriters(orders, settings.writers())) {
      BillingService billing = new BillingService(billingDs, writers::invoiced);
      billing.createSchema();
      DeliveryWatch watch =
          new DeliveryWatch(
              settings.timeout(),
              OutboxOperations.create(ordersDs),
              billing.processor(),
              this::say);
      try (KafkaTransport transport =
              KafkaTransport.builder()
                  .bootstrapServers(kafka.bootstrapServers())
                  .clientProperties(kafka.clientProperties())
                  .source("/tandem/demo/order-service")
                  .topicRouter(TopicRouter.fixed(topic))
                  .build();
          KafkaMessageSource source =
              KafkaMessageSource.builder()
                  .bootstrapServers(kafka.bootstrapServers())
                  .clientProperties(kafka.clientProperties())
                  .groupId("billing-" + runId)
                  .topics(List.of(topic))
                  .pollTimeout(Duration.ofMillis(100))
                  .build();
          ConsumerRunner consumer =
              ConsumerRunner.builder()
                  .source(source)
                  .processor(billing.processor())
                  .concurrency(CONSUMER_LANES)
                  .build()) {
        consumer.start();
        watch.awaitAssignment(source);
        startupMillis = millisSince(start);
        say(
            "started in %.1f s: servers %.1f s, then 2 databases with their schemas and the"
                + " consumer %.1f s",
            startupMillis / 1000.0,
            serversMillis / 1000.0,
            (startupMillis - serversMillis) / 1000.0);
        runStart = System.nanoTime();
        DemoRelays fleet =
            new DemoRelays(
                transport,
                ordersDs,
                n ->
                    say(
                        "killed relay demo-relay-%d after the broker acknowledged its batch,"
                            + " before it marked it published",
                        n));
        if (crashOrders > 0) {
          writers.confirm(1, crashOrders);
          for (int n = 1; n <= settings.relayCrashes(); n++) {
            OutboxRelay doomed = fleet.doomed(n);
            relays.add(doomed);
            doomed.start();
            watch.awaitCrash(doomed);
          }
        }
        for (int n = 1; n <= settings.relays(); n++) {
          OutboxRelay healthy = fleet.healthy(settings.relayCrashes() + n);
          relays.add(healthy);
          healthy.start();
        }
        if (crashOrders > 0) {
          watch.awaitRepublished(crashOrders);
          recoveryMillis =
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - fleet.lastCrashNanos());
          say(
              "the healthy relays took the dead relay's partitions when its lease expired and"
                  + " published its batch again: %d duplicates reached billing %.1f s after the"
                  + " kill, each a no-op in its inbox",
              billing.processor().duplicateCount(), recoveryMillis / 1000.0);
        }
        watch.awaitBalanced(relays.subList(settings.relayCrashes(), relays.size()));
        say(
            "confirming %d %s with %d writers",
            settings.orders(), settings.orders() == 1 ? "order" : "orders", settings.writers());
        for (Future<?> w : writers.start(crashOrders, settings.orders())) {
          w.get();
        }
        watch.awaitDelivery(crashOrders + settings.orders(), writers::committed, fleet::crashes);
        watch.awaitDrained(kafka, topic);
        relays.forEach(OutboxRelay::close);
        long runMillis = millisSince(runStart);
        return report(
            ordersDs,
            billingDs,
            billing,
            writers,
            fleet.crashes(),
            start,
            crashOrders,
            recoveryMillis,
            new DemoReport.Timings(serversMillis, startupMillis, runMillis));
      } finally {
        relays.forEach(OutboxRelay::close);
      }
    }
  }

  /** Reads the run back: Tandem's tables through the library, the invoices from billing's own. */
  private DemoReport report(
      DataSource orders,
      DataSource billingDs,
      BillingService billing,
      OrderWriters writers,
      int crashes,
      long start,
      int crashOrders,
      long recoveryMillis,
      DemoReport.Timings timings)
      throws SQLException {
    OutboxOperations outbox = OutboxOperations.create(orders);
    Set<UUID> outboxIds = outbox.eventIds();
    Set<UUID> inboxIds =
        InboxOperations.create(billingDs).processedEventIds(BillingService.CONSUMER);
    Set<UUID> lost = new HashSet<>(outboxIds);
    lost.removeAll(inboxIds);
    long invoices = count(billingDs, "SELECT count(*) FROM demo_invoices");
    long invoicedOrders = count(billingDs, "SELECT count(DISTINCT order_id) FROM demo_invoices");
    List<Double> sorted = writers.sortedLatencies();
    return new DemoReport(
        outboxIds.size(),
        outbox.status().published(),
        inboxIds.size(),
        billing.processor().duplicateCount(),
        invoices - invoicedOrders,
        lost.size(),
        crashes,
        crashOrders,
        recoveryMillis,
        settings.orders(),
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        millisSince(start),
        timings);
  }

  static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  private static HikariDataSource pool(IsolatedDatabase db, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(db.dataSource());
    config.setPoolName("demo-" + name);
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  /** A count over billing's own tables. */
  private static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[demo] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
