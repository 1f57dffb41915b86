package io.tandem.examples.choreography;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.TandemException;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxOperations;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.outbox.OutboxOperations;
import io.tandem.saga.SagaTrail;
import io.tandem.saga.TrailEntry;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The checkout as a choreography: four services, each with its own database, that react to each
 * other's events through their outbox and inbox, with no coordinator.
 *
 * <pre>
 * order      OrderCreated ─────────────▶ payment
 * payment    PaymentAuthorized ────────▶ inventory          PaymentDeclined ─▶ order: OrderCancelled
 * inventory  InventoryReserved ────────▶ shipping           OutOfStock ──────▶ payment
 * shipping   ShipmentRequested ────────▶ order: OrderConfirmed
 * payment    PaymentRefunded (after OutOfStock) ▶ order: OrderCancelled
 * </pre>
 *
 * <p>{@code OrderCreated} opens a correlation id ({@code correlationid} header) that every later
 * event copies from the event it reacts to, so {@link #trail(String)} ({@link SagaTrail}) lists a
 * checkout's events across the four databases in order. The failures follow from the order data
 * ({@link OrderRequest}): an amount above the payment limit is declined, the sold-out product is
 * out of stock (its payment is refunded, the compensation), and the carrier fails transiently as
 * often as the order says (shipping retries in place). {@link FailureMix} chooses a mix for {@link
 * #run}.
 *
 * <p>Use, for example from {@code ./tandem demo --mode choreography}:
 *
 * <pre>{@code
 * try (ChoreographedCheckout checkout = ChoreographedCheckout.builder()
 *         .jdbcUrl("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres") // else embedded
 *         .kafkaBootstrap("127.0.0.1:9092")                                   // else embedded
 *         .mariadbUrl("jdbc:mariadb://127.0.0.1:3306/test?user=root")         // optional
 *         .progress(System.out)
 *         .build()) {
 *   checkout.start();
 *   List<PlacedOrder> orders = checkout.run(200, FailureMix.DEFAULT);
 *   boolean finished = checkout.awaitAllFinished(Duration.ofMinutes(2));
 *   ChoreographyInvariants invariants = checkout.invariants();
 *   System.out.print(invariants.toTable());
 *   System.out.print(checkout.renderTrail(orders.get(0).correlationId()));
 * }
 * }</pre>
 *
 * <p>What {@link #start()} sets up: databases {@code choreo_order_*}, {@code choreo_payment_*} (on
 * MariaDB when {@link Builder#mariadbUrl} answers or {@link Builder#paymentDatabase} says so),
 * {@code choreo_inventory_*} and {@code choreo_shipping_*}, each migrated with Tandem's tables and
 * its service's own; topics {@code <prefix>order}, {@code payment}, {@code reservation}, {@code
 * shipment} (3 partitions) under a prefix unique to the instance; per service one {@code
 * OutboxRelay} and one {@code ConsumerRunner} with a {@code KafkaMessageSource}: order listens to
 * payment and shipment, payment to order and reservation, inventory to payment, shipping to
 * reservation. Servers it starts itself (embedded PostgreSQL or Kafka) are stopped by {@link
 * #close()}, which also drops the databases; servers given to the builder are left running.
 *
 * <p>Thread-safe: orders may be placed from several threads.
 */
public final class ChoreographedCheckout implements AutoCloseable {
  /** How often the relays look for new rows besides PostgreSQL's notifications. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);

  /** Worker lanes of each service's consumer. */
  public static final int DEFAULT_CONCURRENCY = 4;

  private static final int PARTITIONS = 3;

  /** The event types (topics) each service listens to. */
  static final Map<String, List<String>> INBOUND =
      Map.of(
          OrderService.NAME, List.of(Events.PAYMENT, Events.SHIPMENT),
          PaymentService.NAME, List.of(Events.ORDER, Events.RESERVATION),
          InventoryService.NAME, List.of(Events.PAYMENT),
          ShippingService.NAME, List.of(Events.RESERVATION));

  /**
   * What {@link #redeliverAll} did.
   *
   * @param delivered messages delivered again, every topic from its first record
   * @param duplicates of those, the ones the inboxes recognised as duplicates
   * @param applied of those, the ones applied (0 when every checkout had finished)
   */
  public record Redelivery(long delivered, long duplicates, long applied) {}

  private final Builder settings;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final Map<String, PlacedOrder> placed = new ConcurrentHashMap<>();
  private final AtomicInteger sequence = new AtomicInteger();
  private final AtomicInteger redeliveries = new AtomicInteger();
  private final LongAdder redeliveredDuplicates = new LongAdder();
  private final String prefix;
  private String bootstrapServers;
  private Map<String, String> kafkaClient = Map.of();
  private boolean paymentOnMariaDb;
  private long serversMillis;
  private OrderService orders;
  private PaymentService payments;
  private InventoryService inventory;
  private ShippingService shipping;
  private final List<ServiceNode> nodes = new ArrayList<>();
  private final Map<String, DataSource> databases = new HashMap<>();
  private final Map<String, String> jdbcUrls = new HashMap<>();
  private SagaTrail trail;
  private boolean started; // guarded by this
  private boolean closed; // guarded by this

  private ChoreographedCheckout(Builder b) {
    this.settings = b.copy();
    this.prefix =
        b.topicPrefix != null
            ? b.topicPrefix
            : "tandem.choreo-"
                + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36)
                + ".";
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the servers it owns, creates and migrates the four databases, creates the topics and
   * starts every service. On failure, everything started is closed again before the exception
   * propagates.
   *
   * @throws IllegalStateException if already started or closed
   */
  public synchronized void start() {
    if (started || closed) {
      throw new IllegalStateException("the choreography is " + (closed ? "closed" : "started"));
    }
    started = true;
    try {
      startServices();
    } catch (SQLException e) {
      closeQuietly(e);
      throw new JdbcException("starting the choreographed checkout failed", e);
    } catch (RuntimeException e) {
      closeQuietly(e);
      throw e;
    }
  }

  private void startServices() throws SQLException {
    long start = System.nanoTime();
    DatabaseServer postgres = postgres();
    DatabaseServer paymentServer = paymentServer(postgres);
    paymentOnMariaDb = paymentServer instanceof MariaDbServer;
    KafkaBroker kafka = kafka();
    bootstrapServers = kafka.bootstrapServers();
    kafkaClient = kafka.clientProperties();
    serversMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    say(
        "services on %s; payment on %s; Kafka at %s; topics %s*",
        postgres, paymentServer, bootstrapServers, prefix);
    // The topics take seconds to become writable: create them while the databases migrate.
    FutureTask<Void> topics =
        new FutureTask<>(
            () -> {
              for (String type :
                  List.of(Events.ORDER, Events.PAYMENT, Events.RESERVATION, Events.SHIPMENT)) {
                createWritableTopic(kafka, topic(type));
              }
              return null;
            });
    Thread creator = new Thread(topics, "choreo-topics");
    creator.setDaemon(true);
    creator.start();
    DataSource orderDs = database(postgres, OrderService.NAME);
    DataSource paymentDs = database(paymentServer, PaymentService.NAME);
    DataSource inventoryDs = database(postgres, InventoryService.NAME);
    DataSource shippingDs = database(postgres, ShippingService.NAME);
    orders = new OrderService(orderDs);
    payments = new PaymentService(paymentDs);
    inventory = new InventoryService(inventoryDs);
    shipping = new ShippingService(shippingDs);
    orders.createSchema();
    payments.createSchema();
    inventory.createSchema();
    shipping.createSchema();
    awaitTopics(topics);
    for (String service : services()) {
      if (settings.externalServices.contains(service)) {
        say("%s runs elsewhere (ChoreographyServiceMain)", service);
      } else {
        node(service, databases.get(service));
      }
    }
    SagaTrail.Builder t = SagaTrail.builder();
    for (String service : services()) {
      t.service(service, databases.get(service));
    }
    trail = t.build();
    say("four services running");
  }

  private static void awaitTopics(FutureTask<Void> topics) {
    try {
      topics.get(2, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new TandemException("creating the topics failed", e.getCause());
    } catch (TimeoutException e) {
      throw new TandemException("creating the topics took more than 2 minutes", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("interrupted while creating the topics", e);
    }
  }

  private DatabaseServer postgres() {
    if (settings.postgres != null) {
      return settings.postgres;
    }
    if (settings.jdbcUrl != null) {
      return PostgresServer.external(settings.jdbcUrl);
    }
    say("starting an embedded PostgreSQL");
    PostgresServer server = PostgresServer.embedded().start();
    resources.push(server);
    return server;
  }

  private DatabaseServer paymentServer(DatabaseServer postgres) {
    if (settings.paymentDatabase != null) {
      return settings.paymentDatabase;
    }
    if (settings.mariadbUrl != null) {
      try {
        return MariaDbServer.external(settings.mariadbUrl);
      } catch (IllegalStateException e) {
        say("MariaDB does not answer (%s); payment runs on PostgreSQL", e.getMessage());
      }
    }
    return postgres;
  }

  private KafkaBroker kafka() {
    if (settings.kafka != null) {
      return settings.kafka;
    }
    if (settings.kafkaBootstrap != null) {
      return KafkaBroker.external(settings.kafkaBootstrap, settings.kafkaClient);
    }
    say("starting an embedded Kafka broker");
    KafkaBroker broker = KafkaBroker.embedded().start();
    resources.push(broker);
    return broker;
  }

  private DataSource database(DatabaseServer server, String service) {
    IsolatedDatabase database = server.createDatabase("choreo_" + service);
    resources.push(database);
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setPoolName("choreo-" + service);
    config.setMaximumPoolSize(settings.concurrency + 6);
    HikariDataSource pool = new HikariDataSource(config);
    resources.push(pool);
    Migrations.migrate(pool);
    databases.put(service, pool);
    jdbcUrls.put(service, database.jdbcUrl());
    return pool;
  }

  private void node(String service, DataSource ds) {
    ServiceNode node =
        startNode(
            service,
            ds,
            processorOf(service),
            service.equals(PaymentService.NAME) && paymentOnMariaDb,
            settings.pollInterval,
            bootstrapServers,
            kafkaClient,
            prefix,
            settings.concurrency);
    resources.push(node);
    nodes.add(node);
  }

  /**
   * Starts {@code service}'s relay and consumer (this JVM's, or {@link ChoreographyServiceMain}'s):
   * its topics under {@code prefix}, its consumer group {@code prefix + service}.
   *
   * @param onMariaDb its database is MariaDB, which has no LISTEN/NOTIFY: the relay then polls
   *     twice as often, having nothing else to find new rows by
   */
  static ServiceNode startNode(
      String service,
      DataSource ds,
      InboxProcessor processor,
      boolean onMariaDb,
      Duration pollInterval,
      String bootstrapServers,
      Map<String, String> kafkaClient,
      String prefix,
      int concurrency) {
    return ServiceNode.start(
        service,
        ds,
        processor,
        topics(prefix, service),
        bootstrapServers,
        kafkaClient,
        prefix,
        prefix + service,
        onMariaDb ? pollInterval.dividedBy(2) : pollInterval,
        concurrency);
  }

  /** The topics {@code service} listens to, under {@code prefix}. */
  static List<String> topics(String prefix, String service) {
    List<String> topics = new ArrayList<>();
    for (String type : INBOUND.get(service)) {
      topics.add(prefix + type.toLowerCase(Locale.ROOT));
    }
    return topics;
  }

  private String topic(String aggregateType) {
    return prefix + aggregateType.toLowerCase(Locale.ROOT);
  }

  /**
   * Creates a topic and waits until its partitions' leaders answer: an idempotent producer whose
   * first batch meets a leader that is not ready yet was seen to retry until its delivery timeout.
   */
  private static void createWritableTopic(KafkaBroker kafka, String topic) {
    kafka.createTopic(topic, PARTITIONS);
    try (KafkaConsumer<byte[], byte[]> consumer =
        rawConsumer(kafka.bootstrapServers(), kafka.clientProperties())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        partitions.add(new TopicPartition(topic, p));
      }
      consumer.endOffsets(partitions, Duration.ofSeconds(30));
    }
  }

  private static KafkaConsumer<byte[], byte[]> rawConsumer(
      String bootstrapServers, Map<String, String> kafkaClient) {
    return new KafkaConsumer<>(
        KafkaClientProperties.consumer(
            kafkaClient,
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class)));
  }

  // ---- the business -------------------------------------------------------------------------

  /**
   * Places one order: the order service commits it with its {@code OrderCreated}, which starts the
   * choreography. Returns at once; the checkout then moves on by itself.
   */
  public PlacedOrder placeOrder(OrderRequest request) {
    requireStarted();
    if (request == null) {
      throw new IllegalArgumentException("request must not be null");
    }
    String orderId = String.format(Locale.ROOT, "order-%06d", sequence.incrementAndGet());
    PlacedOrder order = query(() -> orders.place(orderId, "checkout-" + orderId, request));
    placed.put(orderId, order);
    return order;
  }

  /**
   * Places {@code n} orders one after the other, the failures chosen by {@code mix} ({@link
   * FailureMix#request(int)}); returns them in order.
   */
  public List<PlacedOrder> run(int n, FailureMix mix) {
    if (n < 1 || n > 1_000_000) {
      throw new IllegalArgumentException("n must be 1 to 1000000, was " + n);
    }
    if (mix == null) {
      throw new IllegalArgumentException("mix must not be null (FailureMix.NONE for none)");
    }
    List<PlacedOrder> run = new ArrayList<>(n);
    int first = placed.size();
    for (int i = 0; i < n; i++) {
      run.add(placeOrder(mix.request(first + i)));
    }
    say("placed %d orders", n);
    return run;
  }

  /**
   * Waits until every order placed has finished (confirmed or cancelled) and every service's outbox
   * is published, printing progress every second when a progress stream is set.
   *
   * @return true when all finished, false when {@code timeout} passed first
   */
  public boolean awaitAllFinished(Duration timeout) {
    requireStarted();
    long deadline = System.nanoTime() + timeout.toNanos();
    long lastSay = 0;
    while (true) {
      long pending = query(orders::pending);
      long unpublished = 0;
      for (DataSource ds : databases.values()) {
        unpublished += OutboxOperations.create(ds).status().pending();
      }
      if (pending == 0 && unpublished == 0) {
        say("all %d checkouts finished", placed.size());
        return true;
      }
      if (System.nanoTime() - lastSay > TimeUnit.SECONDS.toNanos(1)) {
        lastSay = System.nanoTime();
        say("%d of %d checkouts moving, %d events to publish", pending, placed.size(), unpublished);
      }
      if (System.nanoTime() > deadline) {
        say("timed out after %s: %d checkouts still moving", timeout, pending);
        return false;
      }
      try {
        TimeUnit.MILLISECONDS.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /** Where one order stands, as the order service says; {@code PENDING} for an unknown order. */
  public CheckoutOutcome outcome(String orderId) {
    requireStarted();
    return query(orders::outcomes).getOrDefault(orderId, CheckoutOutcome.PENDING);
  }

  /** How many times the carrier was asked before it accepted an order's parcel; 0 if never. */
  public int carrierAttempts(String orderId) {
    requireStarted();
    return query(() -> shipping.carrierAttempts(orderId));
  }

  /** Reads the invariants back from the four databases. */
  public ChoreographyInvariants invariants() {
    requireStarted();
    Map<String, CheckoutOutcome> outcomes = query(orders::outcomes);
    Map<String, Long> net = query(payments::netCharged);
    Map<String, Long> reserved = query(inventory::reservedUnits);
    long deadLetters = 0;
    long duplicates = redeliveredDuplicates.sum();
    for (ServiceNode node : nodes) {
      deadLetters += node.processor().deadLetters(DeadLetterStatus.DEAD, 0, 10_000).size();
      duplicates += node.processor().duplicateCount();
    }
    for (String service : settings.externalServices) {
      // runs elsewhere: its dead letters are in its database (its consumer is named after it);
      // its duplicates count is its own
      deadLetters += InboxOperations.create(databases.get(service)).openDeadLetters(service);
    }
    return ChoreographyInvariants.of(
        List.copyOf(placed.values()),
        outcomes,
        net,
        reserved,
        query(payments::doubleMovements),
        query(inventory::unbalancedProducts),
        deadLetters,
        duplicates);
  }

  // ---- following a checkout -----------------------------------------------------------------

  /** Every event of one checkout across the four services, in order ({@link SagaTrail#find}). */
  public List<TrailEntry> trail(String correlationId) {
    requireStarted();
    return trail.find(correlationId);
  }

  /** {@link #trail(String)} as a table for people ({@link SagaTrail#render}). */
  public String renderTrail(String correlationId) {
    return SagaTrail.render(correlationId, trail(correlationId));
  }

  /** The services, in flow order: order, payment, inventory, shipping. */
  public List<String> services() {
    return List.of(
        OrderService.NAME, PaymentService.NAME, InventoryService.NAME, ShippingService.NAME);
  }

  /** Whether the payment service's database is MariaDB (else PostgreSQL). */
  /**
   * How long starting the servers took: the embedded PostgreSQL and Kafka broker it started, close
   * to 0 for servers it was given. Known once {@link #start()} returned.
   */
  public long serversMillis() {
    return serversMillis;
  }

  public boolean paymentOnMariaDb() {
    requireStarted();
    return paymentOnMariaDb;
  }

  /** The prefix of this instance's topics and consumer groups. */
  public String topicPrefix() {
    return prefix;
  }

  /** The JDBC URL of a service's database, for a service run elsewhere (its user included). */
  public String jdbcUrl(String service) {
    requireStarted();
    database(service); // checks the name
    return jdbcUrls.get(service);
  }

  /** The Kafka client settings (TLS, SASL) the services use beside {@link #bootstrapServers()}. */
  public Map<String, String> kafkaClientProperties() {
    return kafkaClient;
  }

  /** The Kafka cluster the services use. */
  public String bootstrapServers() {
    requireStarted();
    return bootstrapServers;
  }

  /** A service's database (order, payment, inventory or shipping), for inspection. */
  public DataSource database(String service) {
    requireStarted();
    DataSource ds = databases.get(service);
    if (ds == null) {
      throw new IllegalArgumentException(
          "service must be one of " + services() + ", was '" + service + "'");
    }
    return ds;
  }

  // ---- duplicates ---------------------------------------------------------------------------

  /**
   * Delivers every message again: for each service, a second consumer with the same inbox reads its
   * topics from the first record under a new consumer group, as after an offset reset or a replay
   * from the broker. The inboxes must recognise every message as a duplicate; nothing changes in
   * the databases. Returns once each has read all records there were, or throws.
   *
   * @throws TandemException when a redelivery does not finish within {@code timeout}
   */
  public Redelivery redeliverAll(Duration timeout) {
    requireStarted();
    int round = redeliveries.incrementAndGet();
    long delivered = 0;
    long duplicates = 0;
    long applied = 0;
    long deadline = System.nanoTime() + timeout.toNanos();
    for (ServiceNode node : nodes) {
      long records = recordCount(node.topics());
      InboxProcessor processor = processorOf(node.service());
      try (ConsumerRunner runner =
          ServiceNode.runner(
              processor,
              node.topics(),
              bootstrapServers,
              kafkaClient,
              prefix + node.service() + "-redelivery-" + round,
              settings.concurrency)) {
        runner.start();
        while (handled(processor) < records) {
          if (System.nanoTime() > deadline) {
            throw new TandemException(
                "redelivery to "
                    + node.service()
                    + " handled "
                    + handled(processor)
                    + " of "
                    + records
                    + " records within "
                    + timeout);
          }
          sleep(Duration.ofMillis(50));
        }
      }
      delivered += handled(processor);
      duplicates += processor.duplicateCount();
      applied += processor.appliedCount();
    }
    redeliveredDuplicates.add(duplicates);
    say("redelivered %d messages: %d duplicates, %d applied", delivered, duplicates, applied);
    return new Redelivery(delivered, duplicates, applied);
  }

  private InboxProcessor processorOf(String service) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    return switch (service) {
      case OrderService.NAME -> orders.processor(meters);
      case PaymentService.NAME -> payments.processor(meters);
      case InventoryService.NAME -> inventory.processor(meters);
      default -> shipping.processor(meters);
    };
  }

  /** A new inbox processor of {@code service} on its database {@code ds}. */
  static InboxProcessor processorOf(String service, DataSource ds) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    return switch (service) {
      case OrderService.NAME -> new OrderService(ds).processor(meters);
      case PaymentService.NAME -> new PaymentService(ds).processor(meters);
      case InventoryService.NAME -> new InventoryService(ds).processor(meters);
      case ShippingService.NAME -> new ShippingService(ds).processor(meters);
      default ->
          throw new IllegalArgumentException(
              "service must be order, payment, inventory or shipping, was '" + service + "'");
    };
  }

  private static long handled(InboxProcessor p) {
    return p.appliedCount()
        + p.duplicateCount()
        + p.skippedCount()
        + p.parkedCount()
        + p.deadLetteredCount();
  }

  private long recordCount(List<String> topics) {
    try (KafkaConsumer<byte[], byte[]> consumer = rawConsumer(bootstrapServers, kafkaClient)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        consumer
            .partitionsFor(topic)
            .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      }
      long end = consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
      long start =
          consumer.beginningOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
      return end - start;
    }
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  /**
   * Stops every service, closes the pools, drops the databases and stops the servers this instance
   * started, last started first. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = null;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new TandemException("closing the choreographed checkout failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void closeQuietly(Exception cause) {
    try {
      close();
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  private synchronized void requireStarted() {
    if (!started || closed) {
      throw new IllegalStateException(
          "the choreography is " + (closed ? "closed" : "not started: call start() first"));
    }
  }

  @FunctionalInterface
  private interface Read<T> {
    T read() throws SQLException;
  }

  private static <T> T query(Read<T> read) {
    try {
      return read.read();
    } catch (SQLException e) {
      throw new JdbcException("reading the services' databases failed", e);
    }
  }

  private static void sleep(Duration d) {
    try {
      TimeUnit.MILLISECONDS.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("interrupted", e);
    }
  }

  private void say(String format, Object... args) {
    PrintStream out = settings.progress;
    if (out != null) {
      out.println("[choreography] " + String.format(Locale.ROOT, format, args));
      out.flush();
    }
  }

  /**
   * Builds a {@link ChoreographedCheckout} (not started). Every setting is optional: without
   * servers, it starts an embedded PostgreSQL and an embedded Kafka broker. Not thread-safe.
   */
  public static final class Builder {
    private DatabaseServer postgres;
    private String jdbcUrl;
    private DatabaseServer paymentDatabase;
    private String mariadbUrl;
    private KafkaBroker kafka;
    private String kafkaBootstrap;
    private Map<String, String> kafkaClient = Map.of();
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private int concurrency = DEFAULT_CONCURRENCY;
    private String topicPrefix;
    private PrintStream progress;
    private Set<String> externalServices = Set.of();

    private Builder() {}

    private Builder copy() {
      Builder b = new Builder();
      b.postgres = postgres;
      b.jdbcUrl = jdbcUrl;
      b.paymentDatabase = paymentDatabase;
      b.mariadbUrl = mariadbUrl;
      b.kafka = kafka;
      b.kafkaBootstrap = kafkaBootstrap;
      b.kafkaClient = kafkaClient;
      b.pollInterval = pollInterval;
      b.concurrency = concurrency;
      b.topicPrefix = topicPrefix;
      b.progress = progress;
      b.externalServices = externalServices;
      return b;
    }

    /** A running PostgreSQL server for the databases (left running by {@code close()}). */
    public Builder postgres(PostgresServer postgres) {
      this.postgres = postgres;
      return this;
    }

    /**
     * An external PostgreSQL by JDBC URL whose user may create databases, e.g. {@code
     * jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}; null (default) for an embedded one.
     */
    public Builder jdbcUrl(String jdbcUrl) {
      this.jdbcUrl = blankToNull(jdbcUrl);
      return this;
    }

    /** The server of the payment service's database (a MariaDB, say); default PostgreSQL. */
    public Builder paymentDatabase(DatabaseServer paymentDatabase) {
      this.paymentDatabase = paymentDatabase;
      return this;
    }

    /**
     * A MariaDB for the payment service's database, used when it answers at start (else payment
     * runs on PostgreSQL, which the progress stream reports), e.g. {@code
     * jdbc:mariadb://127.0.0.1:3306/test?user=root}.
     */
    public Builder mariadbUrl(String mariadbUrl) {
      this.mariadbUrl = blankToNull(mariadbUrl);
      return this;
    }

    /** A running Kafka cluster (left running by {@code close()}). */
    public Builder kafka(KafkaBroker kafka) {
      this.kafka = kafka;
      return this;
    }

    /**
     * Client settings (TLS, SASL) for the Kafka of {@link #kafkaBootstrap}; none by default. Their
     * values are never printed; service processes get them through their environment.
     */
    public Builder kafkaClientProperties(Map<String, String> kafkaClient) {
      this.kafkaClient = Map.copyOf(kafkaClient);
      return this;
    }

    /** An external Kafka by bootstrap servers; null (default) for an embedded broker. */
    public Builder kafkaBootstrap(String kafkaBootstrap) {
      this.kafkaBootstrap = blankToNull(kafkaBootstrap);
      return this;
    }

    /**
     * How often the relays look for new outbox rows besides PostgreSQL's notifications (half of it
     * on MariaDB, which has none); default {@link #DEFAULT_POLL_INTERVAL}, at least 10 ms.
     */
    public Builder pollInterval(Duration pollInterval) {
      if (pollInterval == null || pollInterval.toMillis() < 10) {
        throw new IllegalArgumentException(
            "pollInterval must be at least 10 ms, was " + pollInterval);
      }
      this.pollInterval = pollInterval;
      return this;
    }

    /** Worker lanes of each service's consumer, 1 to 32; default {@value #DEFAULT_CONCURRENCY}. */
    public Builder concurrency(int concurrency) {
      if (concurrency < 1 || concurrency > 32) {
        throw new IllegalArgumentException("concurrency must be 1 to 32, was " + concurrency);
      }
      this.concurrency = concurrency;
      return this;
    }

    /**
     * The prefix of the topics and consumer groups: 1 to 100 of {@code a-z 0-9 . _ -}; default
     * {@code tandem.choreo-<random>.}, so runs sharing a cluster never see each other's events.
     */
    public Builder topicPrefix(String topicPrefix) {
      if (topicPrefix == null || !topicPrefix.matches("[a-z0-9._-]{1,100}")) {
        throw new IllegalArgumentException(
            "topicPrefix must be 1 to 100 of a-z, 0-9, '.', '_', '-', was '" + topicPrefix + "'");
      }
      this.topicPrefix = topicPrefix;
      return this;
    }

    /**
     * Services this instance does not run: their databases and topics are created as for the
     * others, but their relay and consumer run elsewhere — {@link ChoreographyServiceMain} in a
     * process of its own, given {@link ChoreographedCheckout#jdbcUrl(String)}, {@link
     * ChoreographedCheckout#bootstrapServers()} and {@link ChoreographedCheckout#topicPrefix()} —
     * so that a test can kill one with SIGKILL and start it again. {@link
     * ChoreographedCheckout#redeliverAll} leaves them out.
     */
    public Builder externalServices(String... services) {
      for (String service : services) {
        if (!INBOUND.containsKey(service)) {
          throw new IllegalArgumentException(
              "service must be order, payment, inventory or shipping, was '" + service + "'");
        }
      }
      this.externalServices = Set.of(services);
      return this;
    }

    /** Where to print progress lines; null (default) for silence. */
    public Builder progress(PrintStream progress) {
      this.progress = progress;
      return this;
    }

    /**
     * @throws IllegalArgumentException when both a server and a URL are given for the same role
     */
    public ChoreographedCheckout build() {
      if (postgres != null && jdbcUrl != null) {
        throw new IllegalArgumentException("give postgres or jdbcUrl, not both");
      }
      if (kafka != null && kafkaBootstrap != null) {
        throw new IllegalArgumentException("give kafka or kafkaBootstrap, not both");
      }
      if (paymentDatabase != null && mariadbUrl != null) {
        throw new IllegalArgumentException("give paymentDatabase or mariadbUrl, not both");
      }
      return new ChoreographedCheckout(this);
    }

    private static String blankToNull(String s) {
      return s == null || s.isBlank() ? null : s.strip();
    }
  }
}
