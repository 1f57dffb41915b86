package io.tandem.examples.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.FaultInjector;
import io.tandem.inbox.HandleResult;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaEventConsumer;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
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
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs the outbox reference flow end to end and checks it from the databases.
 *
 * <p>The order service confirms N orders with 4 writers; relays publish to Kafka; the billing
 * service consumes through its inbox. The first relay(s) are killed right after the broker's
 * acknowledgement and before marking, so their batch is published a second time once the lease
 * expires: real duplicates reach billing, and the inbox must absorb them.
 */
public final class OutboxDemo {
  private static final Duration LEASE = Duration.ofSeconds(5);
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration SLOW_CYCLE = Duration.ofSeconds(2);
  private static final Duration HEARTBEAT = Duration.ofMillis(500);
  private static final int RELAY_BATCH = 100;

  private final DemoSettings settings;
  private final PrintStream progress;
  private final String runId =
      Long.toString(System.currentTimeMillis(), 36) + ThreadLocalRandom.current().nextInt(1000);

  private final ConcurrentHashMap<UUID, Long> commitNanos = new ConcurrentHashMap<>();
  private final List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong committed = new AtomicLong();
  private final AtomicInteger crashes = new AtomicInteger();

  public OutboxDemo(DemoSettings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** Runs the demo; every server and database it started or created is gone afterwards. */
  public DemoReport run() throws Exception {
    long start = System.nanoTime();
    say(
        "starting PostgreSQL (%s) and Kafka (%s)",
        settings.jdbcUrl() == null ? "embedded" : settings.jdbcUrl(),
        settings.kafkaBootstrap() == null ? "embedded" : settings.kafkaBootstrap());
    try (PostgresServer postgres =
            settings.jdbcUrl() == null
                ? PostgresServer.embedded().start()
                : PostgresServer.external(settings.jdbcUrl());
        KafkaBroker kafka =
            settings.kafkaBootstrap() == null
                ? KafkaBroker.embedded().start()
                : KafkaBroker.external(settings.kafkaBootstrap());
        IsolatedDatabase ordersDb = postgres.createDatabase("tandem_demo_orders");
        IsolatedDatabase billingDb = postgres.createDatabase("tandem_demo_billing");
        HikariDataSource orders =
            pool(
                ordersDb,
                "orders",
                settings.writers() + settings.relays() + settings.relayCrashes() + 2);
        HikariDataSource billing = pool(billingDb, "billing", 4)) {
      return run(kafka, orders, billing, start);
    }
  }

  private DemoReport run(KafkaBroker kafka, DataSource ordersDs, DataSource billingDs, long start)
      throws Exception {
    Migrations.migrate(ordersDs);
    Migrations.migrate(billingDs);
    OrderService orders = new OrderService(ordersDs);
    BillingService billing = new BillingService(billingDs);
    orders.createSchema();
    billing.createSchema();
    orders.createPendingOrders(settings.orders());

    String topic = "tandem.demo." + runId + ".order";
    kafka.createTopic(topic, 3);
    List<OutboxRelay> relays = new ArrayList<>();
    ExecutorService writers =
        Executors.newFixedThreadPool(
            settings.writers(),
            r -> {
              Thread t = new Thread(r, "demo-order-writer");
              t.setDaemon(true);
              return t;
            });
    try (KafkaTransport transport =
            KafkaTransport.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .source("/tandem/demo/order-service")
                .topicRouter(TopicRouter.fixed(topic))
                .build();
        KafkaEventConsumer consumer =
            KafkaEventConsumer.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .groupId("billing-" + runId)
                .topics(List.of(topic))
                .handler(
                    event -> {
                      HandleResult result;
                      try {
                        result = billing.on(event);
                      } catch (SQLException e) {
                        throw new IllegalStateException("billing failed: " + e.getMessage(), e);
                      }
                      Long committedAt = commitNanos.get(event.eventId());
                      if (result == HandleResult.APPLIED && committedAt != null) {
                        latencies.add((System.nanoTime() - committedAt) / 1e6);
                      }
                    })
                .build()) {
      consumer.start();
      awaitAssignment(consumer);
      // All relays share the 64 partitions; the first `relayCrashes` of them die after the
      // broker's ack of their first batch, so their share waits for the lease to expire and is
      // then published again by the survivors.
      int total = settings.relays() + settings.relayCrashes();
      for (int n = 1; n <= total; n++) {
        OutboxRelay r = crashingOrHealthyRelay(transport, ordersDs, n);
        relays.add(r);
        r.start();
      }
      awaitBalanced(relays);
      List<Future<?>> writes = startWriters(writers, orders);
      for (OutboxRelay r : relays.subList(0, settings.relayCrashes())) {
        awaitCrash(r);
      }
      for (Future<?> w : writes) {
        w.get();
      }
      awaitDelivery(ordersDs, billing);
      awaitDrained(consumer, kafka.bootstrapServers(), topic);
      relays.forEach(OutboxRelay::close);
    } finally {
      writers.shutdownNow();
      relays.forEach(OutboxRelay::close);
    }
    return report(ordersDs, billingDs, billing, start);
  }

  private OutboxRelay crashingOrHealthyRelay(KafkaTransport transport, DataSource ds, int n) {
    if (n > settings.relayCrashes()) {
      return relay(transport, ds, "demo-relay-" + n, FaultInjector.NONE).build();
    }
    java.util.concurrent.atomic.AtomicBoolean dead =
        new java.util.concurrent.atomic.AtomicBoolean();
    FaultInjector dieAfterAck =
        point -> {
          if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
            // Every batch in flight dies with the relay; the relay itself dies once.
            if (dead.compareAndSet(false, true)) {
              crashes.incrementAndGet();
              say(
                  "killing relay demo-relay-%d after the broker's ack, before it marks its batch",
                  n);
            }
            throw new FaultInjector.SimulatedCrash(point);
          }
        };
    // The doomed relay polls slowly instead of listening, so that by its first cycle a full
    // batch of its partitions' events has committed: the crash strands a whole batch.
    return relay(transport, ds, "demo-relay-" + n, dieAfterAck)
        .listenForInserts(false)
        .pollInterval(SLOW_CYCLE)
        .heartbeatInterval(SLOW_CYCLE)
        .build();
  }

  private static OutboxRelay.Builder relay(
      KafkaTransport transport, DataSource ds, String id, FaultInjector faults) {
    return OutboxRelay.builder()
        .dataSource(ds)
        .transport(transport)
        .relayId(id)
        .batchSize(RELAY_BATCH)
        .leaseDuration(LEASE)
        .publishTimeout(PUBLISH_TIMEOUT)
        .heartbeatInterval(HEARTBEAT)
        .pollInterval(Duration.ofMillis(200))
        .faultInjector(faults);
  }

  private List<Future<?>> startWriters(ExecutorService pool, OrderService orders) {
    AtomicInteger next = new AtomicInteger(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < settings.writers(); w++) {
      futures.add(
          pool.submit(
              () -> {
                for (int n = next.getAndIncrement();
                    n <= settings.orders();
                    n = next.getAndIncrement()) {
                  UUID eventId = orders.confirm(OrderService.orderId(n));
                  commitNanos.put(eventId, System.nanoTime());
                  committed.incrementAndGet();
                }
                return null;
              }));
    }
    return futures;
  }

  private void awaitAssignment(KafkaEventConsumer consumer) throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /** Waits until every relay holds its fair share of the partitions. */
  private void awaitBalanced(List<OutboxRelay> relays) throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (System.nanoTime() < deadline
        && (relays.stream().anyMatch(r -> r.status().ownedPartitions().isEmpty())
            || relays.stream().mapToInt(r -> r.status().ownedPartitions().size()).sum()
                < Dialect.PARTITIONS)) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private void awaitCrash(OutboxRelay relay) throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (!relay.hasCrashed() && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private void awaitDelivery(DataSource orders, BillingService billing) throws Exception {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    long lastPrint = 0;
    while (System.nanoTime() < deadline) {
      long published =
          count(orders, "SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL");
      long delivered = billing.inbox().appliedCount();
      if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(1)) {
        lastPrint = System.nanoTime();
        say(
            "committed %d/%d  published %d  delivered %d  duplicates delivered %d  relay crashes %d",
            committed.get(),
            settings.orders(),
            published,
            delivered,
            billing.inbox().duplicateCount(),
            crashes.get());
      }
      if (published == settings.orders() && delivered == settings.orders()) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    say("timed out after %s waiting for every event to reach billing", settings.timeout());
  }

  /** Waits until the consumer handled every record on the topic, duplicates included. */
  private void awaitDrained(KafkaEventConsumer consumer, String bootstrap, String topic)
      throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    long records;
    try (Admin admin = Admin.create(p)) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (var partition :
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
        latest.put(new TopicPartition(topic, partition.partition()), OffsetSpec.latest());
      }
      records =
          admin.listOffsets(latest).all().get().values().stream()
              .mapToLong(ListOffsetsResultInfo::offset)
              .sum();
    }
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (consumer.handledCount() < records && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private DemoReport report(
      DataSource orders, DataSource billingDs, BillingService billing, long start)
      throws SQLException {
    Set<UUID> outboxIds = ids(orders, "SELECT event_id FROM tandem_outbox");
    Set<UUID> inboxIds =
        ids(
            billingDs,
            "SELECT event_id FROM tandem_inbox WHERE consumer = '" + BillingService.CONSUMER + "'");
    Set<UUID> lost = new HashSet<>(outboxIds);
    lost.removeAll(inboxIds);
    long published =
        count(orders, "SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL");
    long duplicateEffects =
        count(billingDs, "SELECT count(*) - count(DISTINCT order_id) FROM demo_invoices");
    List<Double> sorted;
    synchronized (latencies) {
      sorted = new ArrayList<>(latencies);
    }
    Collections.sort(sorted);
    return new DemoReport(
        outboxIds.size(),
        published,
        inboxIds.size(),
        billing.inbox().duplicateCount(),
        duplicateEffects,
        lost.size(),
        crashes.get(),
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
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

  private static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Set<UUID> ids(DataSource ds, String sql) throws SQLException {
    Set<UUID> ids = new HashSet<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        ids.add(rs.getObject(1, UUID.class));
      }
    }
    return ids;
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[demo] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
