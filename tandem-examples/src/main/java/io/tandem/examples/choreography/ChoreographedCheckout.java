package io.tandem.examples.choreography;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.TandemException;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxOperations;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.OutboxOperations;
import io.tandem.saga.SagaTrail;
import io.tandem.saga.TrailEntry;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.MariaDbServer;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

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
 * MariaDB when {@link ChoreographedCheckoutBuilder#mariadbUrl} answers or {@link
 * ChoreographedCheckoutBuilder#paymentDatabase} says so), {@code choreo_inventory_*} and {@code
 * choreo_shipping_*}, each migrated with Tandem's tables and its service's own; topics {@code
 * <prefix>order}, {@code payment}, {@code reservation}, {@code shipment} (3 partitions) under a
 * prefix unique to the instance; per service one {@code OutboxRelay} and one {@code ConsumerRunner}
 * with a {@code KafkaMessageSource}: order listens to payment and shipment, payment to order and
 * reservation, inventory to payment, shipping to reservation. Servers it starts itself (embedded
 * PostgreSQL or Kafka) are stopped by {@link #close()}, which also drops the databases; servers
 * given to the builder are left running.
 *
 * <p>Thread-safe: orders may be placed from several threads.
 */
public final class ChoreographedCheckout implements AutoCloseable {
  /** How often the relays look for new rows besides PostgreSQL's notifications. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);

  /** Worker lanes of each service's consumer. */
  public static final int DEFAULT_CONCURRENCY = 4;

  /**
   * What {@link #redeliverAll} did.
   *
   * @param delivered messages delivered again, every topic from its first record
   * @param duplicates of those, the ones the inboxes recognised as duplicates
   * @param applied of those, the ones applied (0 when every checkout had finished)
   */
  public record Redelivery(long delivered, long duplicates, long applied) {}

  private final ChoreographedCheckoutBuilder settings;
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

  ChoreographedCheckout(ChoreographedCheckoutBuilder b) {
    this.settings = b.copy();
    this.prefix =
        b.topicPrefix != null
            ? b.topicPrefix
            : "tandem.choreo-"
                + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36)
                + ".";
  }

  public static ChoreographedCheckoutBuilder builder() {
    return new ChoreographedCheckoutBuilder();
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
    } catch (RuntimeException e) {
      closeQuietly(e);
      throw e;
    }
  }

  private void startServices() {
    long start = System.nanoTime();
    ChoreographyServers servers = new ChoreographyServers(settings, resources, this::say);
    DatabaseServer postgres = servers.postgres();
    DatabaseServer paymentServer = servers.paymentServer(postgres);
    paymentOnMariaDb = paymentServer instanceof MariaDbServer;
    KafkaBroker kafka = servers.kafka();
    bootstrapServers = kafka.bootstrapServers();
    kafkaClient = kafka.clientProperties();
    serversMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    say(
        "services on %s; payment on %s; Kafka at %s; topics %s*",
        postgres, paymentServer, bootstrapServers, prefix);
    FutureTask<Void> topics =
        ChoreographyTopics.createInBackground(
            kafka,
            List.of(
                topic(Events.ORDER),
                topic(Events.PAYMENT),
                topic(Events.RESERVATION),
                topic(Events.SHIPMENT)));
    for (String service : services()) {
      ChoreographyServers.ServiceDatabase db =
          servers.database(service.equals(PaymentService.NAME) ? paymentServer : postgres, service);
      databases.put(service, db.pool());
      jdbcUrls.put(service, db.jdbcUrl());
    }
    orders = new OrderService(databases.get(OrderService.NAME));
    payments = new PaymentService(databases.get(PaymentService.NAME));
    inventory = new InventoryService(databases.get(InventoryService.NAME));
    shipping = new ShippingService(databases.get(ShippingService.NAME));
    query(
        () -> {
          orders.createSchema();
          payments.createSchema();
          inventory.createSchema();
          shipping.createSchema();
          return null;
        });
    ChoreographyTopics.await(topics);
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

  private void node(String service, DataSource ds) {
    ServiceNode node =
        ServiceWiring.startNode(
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

  private String topic(String aggregateType) {
    return prefix + aggregateType.toLowerCase(Locale.ROOT);
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

  /**
   * How long starting the servers took: the embedded PostgreSQL and Kafka broker it started, close
   * to 0 for servers it was given. Known once {@link #start()} returned.
   */
  public long serversMillis() {
    return serversMillis;
  }

  /** Whether the payment service's database is MariaDB (else PostgreSQL). */
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
    Redelivery done =
        new ChoreographyRedelivery(bootstrapServers, kafkaClient, prefix, settings.concurrency)
            .run(nodes, this::processorOf, redeliveries.incrementAndGet(), timeout);
    redeliveredDuplicates.add(done.duplicates());
    say(
        "redelivered %d messages: %d duplicates, %d applied",
        done.delivered(), done.duplicates(), done.applied());
    return done;
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

  private void say(String format, Object... args) {
    PrintStream out = settings.progress;
    if (out != null) {
      out.println("[choreography] " + String.format(Locale.ROOT, format, args));
      out.flush();
    }
  }
}
