package io.tandem.examples.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.FaultInjector;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaMessageSource;
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

  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration HEARTBEAT = Duration.ofMillis(250);

  private final DemoSettings settings;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final String runId =
      Long.toString(System.currentTimeMillis(), 36) + ThreadLocalRandom.current().nextInt(1000);

  private final ConcurrentHashMap<UUID, Long> commitNanos = new ConcurrentHashMap<>();
  private final List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong committed = new AtomicLong();
  private final AtomicInteger crashes = new AtomicInteger();
  private volatile long lastCrashNanos;

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
    BillingService billing = new BillingService(billingDs, this::noteLatency);
    orders.createSchema();
    billing.createSchema();
    int crashOrders = settings.relayCrashes() == 0 ? 0 : CRASH_BATCH;
    orders.createPendingOrders(crashOrders + settings.orders());

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
    long startupMillis;
    long runStart;
    long recoveryMillis = 0;
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
      awaitAssignment(source);
      startupMillis = millisSince(start);
      say(
          "started in %.1f s: servers %.1f s, then 2 databases with their schemas and the"
              + " consumer %.1f s",
          startupMillis / 1000.0, serversMillis / 1000.0, (startupMillis - serversMillis) / 1000.0);
      runStart = System.nanoTime();
      if (crashOrders > 0) {
        confirm(orders, 1, crashOrders);
        for (int n = 1; n <= settings.relayCrashes(); n++) {
          OutboxRelay doomed = doomedRelay(transport, ordersDs, n);
          relays.add(doomed);
          doomed.start();
          awaitCrash(doomed);
        }
      }
      for (int n = 1; n <= settings.relays(); n++) {
        OutboxRelay healthy =
            relay(transport, ordersDs, "demo-relay-" + (settings.relayCrashes() + n), NONE).build();
        relays.add(healthy);
        healthy.start();
      }
      if (crashOrders > 0) {
        awaitRepublished(ordersDs, billing, crashOrders);
        recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastCrashNanos);
        say(
            "the healthy relays took the dead relay's partitions when its lease expired and"
                + " published its batch again: %d duplicates reached billing %.1f s after the"
                + " kill, each a no-op in its inbox",
            billing.processor().duplicateCount(), recoveryMillis / 1000.0);
      }
      awaitBalanced(relays.subList(settings.relayCrashes(), relays.size()));
      say(
          "confirming %d %s with %d writers",
          settings.orders(), settings.orders() == 1 ? "order" : "orders", settings.writers());
      List<Future<?>> writes = startWriters(writers, orders, crashOrders);
      for (Future<?> w : writes) {
        w.get();
      }
      awaitDelivery(ordersDs, billing, crashOrders + settings.orders());
      awaitDrained(billing.processor(), kafka, topic);
      relays.forEach(OutboxRelay::close);
    } finally {
      writers.shutdownNow();
      relays.forEach(OutboxRelay::close);
    }
    long runMillis = millisSince(runStart);
    return report(
        ordersDs,
        billingDs,
        billing,
        start,
        crashOrders,
        recoveryMillis,
        new DemoReport.Timings(serversMillis, startupMillis, runMillis));
  }

  private static final FaultInjector NONE = FaultInjector.NONE;

  /** Billing applied and committed {@code eventId}: the demo notes the measured orders' latency. */
  private void noteLatency(UUID eventId) {
    Long committedAt = eventId == null ? null : commitNanos.get(eventId);
    if (committedAt != null) {
      latencies.add((System.nanoTime() - committedAt) / 1e6);
    }
  }

  /** Confirms orders {@code from..to} on this thread (their latency is not measured). */
  private void confirm(OrderService orders, int from, int to) throws SQLException {
    for (int n = from; n <= to; n++) {
      orders.confirm(OrderService.orderId(n));
      committed.incrementAndGet();
    }
  }

  /**
   * A relay that dies right after the broker acknowledged its first batch, before it marks it.
   * Started while the crash batch waits in the outbox, it holds every partition (any earlier doomed
   * relay's leases expire first), so its first read is the whole batch.
   */
  private OutboxRelay doomedRelay(KafkaTransport transport, DataSource ds, int n) {
    java.util.concurrent.atomic.AtomicBoolean dead =
        new java.util.concurrent.atomic.AtomicBoolean();
    FaultInjector dieAfterAck =
        point -> {
          if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
            if (dead.compareAndSet(false, true)) {
              crashes.incrementAndGet();
              lastCrashNanos = System.nanoTime();
              say(
                  "killed relay demo-relay-%d after the broker acknowledged its batch, before it"
                      + " marked it published",
                  n);
            }
            throw new FaultInjector.SimulatedCrash(point);
          }
        };
    return relay(transport, ds, "demo-relay-" + n, dieAfterAck).build();
  }

  private static OutboxRelay.Builder relay(
      KafkaTransport transport, DataSource ds, String id, FaultInjector faults) {
    return OutboxRelay.builder()
        .dataSource(ds)
        .transport(transport)
        .relayId(id)
        .batchSize(CRASH_BATCH)
        .leaseDuration(LEASE)
        .publishTimeout(PUBLISH_TIMEOUT)
        .heartbeatInterval(HEARTBEAT)
        .pollInterval(Duration.ofMillis(200))
        .faultInjector(faults);
  }

  private List<Future<?>> startWriters(ExecutorService pool, OrderService orders, int first) {
    AtomicInteger next = new AtomicInteger(first + 1);
    int last = first + settings.orders();
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < settings.writers(); w++) {
      futures.add(
          pool.submit(
              () -> {
                for (int n = next.getAndIncrement(); n <= last; n = next.getAndIncrement()) {
                  long before = System.nanoTime();
                  UUID eventId = orders.confirm(OrderService.orderId(n));
                  // The commit returned: from here the event is the relay's to publish. (Taken
                  // before the call would count the writer's own transaction as latency.)
                  commitNanos.put(eventId, Math.max(before, System.nanoTime()));
                  committed.incrementAndGet();
                }
                return null;
              }));
    }
    return futures;
  }

  private void awaitAssignment(KafkaMessageSource source) throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (source.assignment().isEmpty() && System.nanoTime() < deadline) {
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

  /**
   * Waits until the crash batch is marked published (by a healthy relay: the killed one marked
   * nothing) and its second copies reached billing, where the inbox counted each as a duplicate.
   */
  private void awaitRepublished(DataSource orders, BillingService billing, int batch)
      throws Exception {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (System.nanoTime() < deadline
        && (billing.processor().duplicateCount() < batch
            || count(orders, "SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL")
                < batch)) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  private void awaitDelivery(DataSource orders, BillingService billing, long total)
      throws Exception {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    long lastPrint = 0;
    while (System.nanoTime() < deadline) {
      long published =
          count(orders, "SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL");
      long delivered = billing.processor().appliedCount();
      if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(1)) {
        lastPrint = System.nanoTime();
        say(
            "committed %d/%d  published %d  delivered %d  duplicates delivered %d  relay crashes %d",
            committed.get(),
            total,
            published,
            delivered,
            billing.processor().duplicateCount(),
            crashes.get());
      }
      if (published == total && delivered == total) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
    say("timed out after %s waiting for every event to reach billing", settings.timeout());
  }

  /** Waits until the consumer handled every record on the topic, duplicates included. */
  private void awaitDrained(InboxProcessor billing, KafkaBroker kafka, String topic)
      throws Exception {
    Properties p = new Properties();
    p.putAll(KafkaClientProperties.admin(kafka.clientProperties()));
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
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
    while (billing.appliedCount() + billing.duplicateCount() < records
        && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private DemoReport report(
      DataSource orders,
      DataSource billingDs,
      BillingService billing,
      long start,
      int crashOrders,
      long recoveryMillis,
      DemoReport.Timings timings)
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
    long invoices = count(billingDs, "SELECT count(*) FROM demo_invoices");
    long invoicedOrders = count(billingDs, "SELECT count(DISTINCT order_id) FROM demo_invoices");
    List<Double> sorted;
    synchronized (latencies) {
      sorted = new ArrayList<>(latencies);
    }
    Collections.sort(sorted);
    return new DemoReport(
        outboxIds.size(),
        published,
        inboxIds.size(),
        billing.processor().duplicateCount(),
        invoices - invoicedOrders,
        lost.size(),
        crashes.get(),
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
