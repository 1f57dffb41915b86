package io.tandem.examples.checkout;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.saga.SagaOrchestrator;
import io.tandem.saga.SagaStatus;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The checkout reference system, started in one call: four services and the orchestrator, each with
 * its own database, connected only through Kafka.
 *
 * <pre>{@code
 * try (CheckoutSystem system = CheckoutSystem.builder()
 *         .postgres(TestInfrastructure.postgres())
 *         .paymentDatabase(TestInfrastructure.mariadb())   // optional; default PostgreSQL
 *         .kafka(TestInfrastructure.kafka())
 *         .start()) {
 *   system.inventory().addProduct("sku-1", 10);
 *   UUID saga = system.checkout(new Checkout("order-1", "ada", "sku-1", 1, 1999,
 *       "4242424242424242", "1 Main Street"));
 *   // wait until system.sagas().find(saga) is COMPLETED or COMPENSATED
 *   CheckoutInvariants invariants = system.invariants();
 * }
 * }</pre>
 *
 * <p>What it starts: databases {@code checkout_orders}, {@code checkout_payments} (on the payment
 * server), {@code checkout_inventory}, {@code checkout_shipping} and {@code checkout_orchestrator},
 * each migrated with Tandem's tables and its service's own; five topics under a prefix unique to
 * this system; one outbox relay per database; one consumer runner per participant (its command
 * topic) and one for the orchestrator (the replies); the orchestrator's timer. The orchestrator
 * lives in its own database, not the order service's: it is a service of its own, and it can run as
 * separate processes ({@link OrchestratorMain}, with {@link Builder#orchestratorInProcess(boolean)
 * orchestratorInProcess(false)}).
 *
 * <p>{@link #close()} stops everything and drops the databases.
 */
public final class CheckoutSystem implements AutoCloseable {
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final List<ServiceRuntime> runtimes = new ArrayList<>();
  private CheckoutOrchestrator orchestrator;
  private final KafkaTopology topology;
  private final boolean paymentOnMariaDb;
  private HikariDataSource orchestratorDb;
  private HikariDataSource ordersDb;
  private HikariDataSource paymentsDb;
  private HikariDataSource inventoryDb;
  private HikariDataSource shippingDb;
  private String orchestratorJdbcUrl;
  private OrderService orders;
  private PaymentService payments;
  private InventoryService inventory;
  private ShippingService shipping;
  private SagaOrchestrator sagas;

  private CheckoutSystem(KafkaTopology topology, boolean paymentOnMariaDb) {
    this.topology = topology;
    this.paymentOnMariaDb = paymentOnMariaDb;
  }

  public static Builder builder() {
    return new Builder();
  }

  private void start(Builder b) throws SQLException {
    IsolatedDatabase orchestratorDatabase = database(b.postgres, "checkout_orchestrator");
    orchestratorJdbcUrl = orchestratorDatabase.jdbcUrl();
    orchestratorDb = pool(orchestratorDatabase, "orchestrator", 12);
    ordersDb = pool(database(b.postgres, "checkout_orders"), "orders", 8);
    paymentsDb = pool(database(b.payment, "checkout_payments"), "payments", 8);
    inventoryDb = pool(database(b.postgres, "checkout_inventory"), "inventory", 8);
    shippingDb = pool(database(b.postgres, "checkout_shipping"), "shipping", 8);
    for (HikariDataSource ds :
        List.of(orchestratorDb, ordersDb, paymentsDb, inventoryDb, shippingDb)) {
      Migrations.migrate(ds);
    }
    MeterRegistry orderMeters = b.serviceMeters.apply(CheckoutSaga.ORDER);
    MeterRegistry paymentMeters = b.serviceMeters.apply(CheckoutSaga.PAYMENT);
    MeterRegistry inventoryMeters = b.serviceMeters.apply(CheckoutSaga.INVENTORY);
    MeterRegistry shippingMeters = b.serviceMeters.apply(CheckoutSaga.SHIPPING);
    orders = new OrderService(ordersDb, orderMeters);
    payments = new PaymentService(paymentsDb, paymentMeters);
    inventory = new InventoryService(inventoryDb, inventoryMeters);
    shipping = new ShippingService(shippingDb, b.carrier, shippingMeters);
    orders.createSchema();
    payments.createSchema();
    inventory.createSchema();
    shipping.createSchema();
    for (String topic : topology.topics()) {
      createWritableTopic(b.kafka, topic);
    }
    Duration postgresPoll = b.pollInterval;
    // MariaDB has no LISTEN/NOTIFY: its relay finds new rows by polling only.
    Duration paymentPoll = paymentOnMariaDb ? b.pollInterval.dividedBy(4) : b.pollInterval;
    runtime(
        ServiceRuntime.start(
            "order",
            "1",
            ordersDb,
            orders.participant().processor(),
            CheckoutSaga.ORDER,
            topology,
            postgresPoll,
            false,
            b.concurrency,
            orderMeters));
    runtime(
        ServiceRuntime.start(
            "payment",
            "1",
            paymentsDb,
            payments.participant().processor(),
            CheckoutSaga.PAYMENT,
            topology,
            paymentPoll,
            paymentOnMariaDb,
            b.concurrency,
            paymentMeters));
    runtime(
        ServiceRuntime.start(
            "inventory",
            "1",
            inventoryDb,
            inventory.participant().processor(),
            CheckoutSaga.INVENTORY,
            topology,
            postgresPoll,
            false,
            b.concurrency,
            inventoryMeters));
    runtime(
        ServiceRuntime.start(
            "shipping",
            "1",
            shippingDb,
            shipping.participant().processor(),
            CheckoutSaga.SHIPPING,
            topology,
            postgresPoll,
            false,
            b.concurrency,
            shippingMeters));
    if (b.orchestratorInProcess) {
      CheckoutOrchestrator node =
          CheckoutOrchestrator.start(
              orchestratorDb,
              topology,
              b.stepTimeout,
              postgresPoll,
              "1",
              io.tandem.core.FaultInjector.NONE,
              b.serviceMeters.apply(CheckoutOrchestrator.NAME));
      resources.push(node);
      orchestrator = node;
      sagas = node.sagas();
    } else {
      sagas = CheckoutOrchestrator.engine(orchestratorDb, b.stepTimeout);
    }
  }

  private void runtime(ServiceRuntime runtime) {
    resources.push(runtime);
    runtimes.add(runtime);
  }

  /**
   * Waits until every consumer of this JVM was given its partitions and every relay holds its
   * share, so that the first checkouts do not wait for the consumer groups to form.
   *
   * @return false when {@code timeout} passed first
   */
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      boolean ready = orchestrator == null || orchestrator.isReady();
      for (ServiceRuntime r : runtimes) {
        ready &= r.isReady();
      }
      if (ready) {
        return true;
      }
      Thread.sleep(20);
    }
    return false;
  }

  private IsolatedDatabase database(DatabaseServer server, String prefix) {
    IsolatedDatabase database = server.createDatabase(prefix);
    resources.push(database);
    return database;
  }

  private HikariDataSource pool(IsolatedDatabase database, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setPoolName("checkout-" + name);
    config.setMaximumPoolSize(size);
    if (database.server() instanceof MariaDbServer) {
      // At MariaDB's default REPEATABLE READ, the participant's SELECT ... FOR UPDATE of a step
      // record that does not exist yet takes a gap lock; two first commands whose keys fall in one
      // gap then deadlock on their inserts (retried, but each retry costs an attempt). READ
      // COMMITTED takes no gap locks, and nothing here relies on repeatable reads.
      config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    }
    HikariDataSource pool = new HikariDataSource(config);
    resources.push(pool);
    return pool;
  }

  /**
   * Creates a topic and waits until its partitions' leaders answer: an idempotent producer whose
   * first batch meets a leader that is not ready yet was seen to retry until its delivery timeout.
   */
  private static void createWritableTopic(KafkaBroker kafka, String topic) {
    kafka.createTopic(topic, 3);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            KafkaClientProperties.consumer(
                kafka.clientProperties(),
                Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                        ByteArrayDeserializer.class)))) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        partitions.add(new TopicPartition(topic, p));
      }
      consumer.endOffsets(partitions, Duration.ofSeconds(30));
    }
  }

  /** Starts a checkout saga; returns its id. */
  public UUID checkout(Checkout checkout) {
    return sagas.start(CheckoutSaga.TYPE, checkout);
  }

  /**
   * Whether each service running in this JVM runs (its relay and its consumer runner), by the names
   * of {@link #databases()}; the orchestrator only when it runs here.
   */
  public Map<String, Boolean> running() {
    Map<String, Boolean> running = new LinkedHashMap<>();
    if (orchestrator != null) {
      running.put(CheckoutOrchestrator.NAME, orchestrator.isRunning());
    }
    for (ServiceRuntime r : runtimes) {
      running.put(r.service(), r.isRunning());
    }
    return running;
  }

  /**
   * Each service's database, by the service's consumer name: {@code checkout-orchestrator}, {@code
   * order}, {@code payment}, {@code inventory}, {@code shipping} (open until {@link #close()}).
   */
  public Map<String, DataSource> databases() {
    Map<String, DataSource> databases = new LinkedHashMap<>();
    databases.put(CheckoutOrchestrator.NAME, orchestratorDb);
    databases.put(CheckoutSaga.ORDER, ordersDb);
    databases.put(CheckoutSaga.PAYMENT, paymentsDb);
    databases.put(CheckoutSaga.INVENTORY, inventoryDb);
    databases.put(CheckoutSaga.SHIPPING, shippingDb);
    return databases;
  }

  /** The saga engine: start, {@code find} (with the step log), {@code list}. */
  public SagaOrchestrator sagas() {
    return sagas;
  }

  public OrderService orders() {
    return orders;
  }

  public PaymentService payments() {
    return payments;
  }

  public InventoryService inventory() {
    return inventory;
  }

  public ShippingService shipping() {
    return shipping;
  }

  /** Where the topics are; an orchestrator process needs it. */
  public KafkaTopology topology() {
    return topology;
  }

  /** The orchestrator database's JDBC URL (with user), for an orchestrator process. */
  public String orchestratorJdbcUrl() {
    return orchestratorJdbcUrl;
  }

  /** Whether the payment service runs on MariaDB (else PostgreSQL). */
  public boolean paymentOnMariaDb() {
    return paymentOnMariaDb;
  }

  /** Checkout sagas per status, every status present (0 when none). */
  public Map<SagaStatus, Long> statusCounts() throws SQLException {
    Map<SagaStatus, Long> counts = new EnumMap<>(SagaStatus.class);
    for (SagaStatus s : SagaStatus.values()) {
      counts.put(s, 0L);
    }
    Queries.countBy(
            orchestratorDb,
            "SELECT status, count(*) FROM tandem_saga WHERE saga_type = 'checkout' GROUP BY status")
        .forEach((status, n) -> counts.put(SagaStatus.valueOf(status), n));
    return counts;
  }

  /**
   * When a checkout saga started and ended, as the orchestrator recorded them.
   *
   * @param ended null while it runs
   */
  public record SagaTime(UUID sagaId, Instant started, Instant ended) {
    /** How long it ran, in milliseconds; NaN while it runs. */
    public double millis() {
      return ended == null ? Double.NaN : Duration.between(started, ended).toNanos() / 1e6;
    }

    /** Milliseconds from the first start to the last end of the ended ones; 0 when none ended. */
    public static double spanMillis(Collection<SagaTime> times) {
      Instant first = null;
      Instant last = null;
      for (SagaTime t : times) {
        if (t.ended == null) {
          continue;
        }
        first = first == null || t.started.isBefore(first) ? t.started : first;
        last = last == null || t.ended.isAfter(last) ? t.ended : last;
      }
      return first == null ? 0 : Duration.between(first, last).toNanos() / 1e6;
    }
  }

  /** Every checkout saga's start and end. */
  public List<SagaTime> sagaTimes() throws SQLException {
    List<SagaTime> times = new ArrayList<>();
    try (Connection c = orchestratorDb.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT saga_id, started_at, ended_at FROM tandem_saga"
                    + " WHERE saga_type = 'checkout'")) {
      while (rs.next()) {
        Timestamp ended = rs.getTimestamp(3);
        times.add(
            new SagaTime(
                rs.getObject(1, UUID.class),
                rs.getTimestamp(2).toInstant(),
                ended == null ? null : ended.toInstant()));
      }
    }
    return times;
  }

  /** Reads the invariants back from the five databases. */
  public CheckoutInvariants invariants() throws SQLException {
    return CheckoutInvariants.read(orchestratorDb, ordersDb, paymentsDb, inventoryDb, shippingDb);
  }

  /** Stops the runtimes, closes the pools and drops the databases, last started first. */
  @Override
  public void close() {
    RuntimeException failure = null;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing the checkout system failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (sagas != null) {
      sagas.close();
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Builds and starts a {@link CheckoutSystem}; postgres and kafka are required. */
  public static final class Builder {
    private DatabaseServer postgres;
    private DatabaseServer payment;
    private KafkaBroker kafka;
    private ShippingService.Carrier carrier = ShippingService.Carrier.flaky(0);
    private Duration stepTimeout = Duration.ofSeconds(10);
    private Duration pollInterval = Duration.ofMillis(200);
    private boolean orchestratorInProcess = true;
    private int concurrency = 4;
    private String topicPrefix;
    private Function<String, MeterRegistry> serviceMeters = service -> new SimpleMeterRegistry();

    private Builder() {}

    /**
     * Where each service of this JVM counts (its relay, consumer runner, inbox and saga meters), by
     * the service's name as {@link CheckoutSystem#databases()} names it; called once per service
     * that runs here. Default: a registry of its own per service that nobody reads.
     */
    public Builder serviceMeters(Function<String, MeterRegistry> serviceMeters) {
      this.serviceMeters = java.util.Objects.requireNonNull(serviceMeters, "serviceMeters");
      return this;
    }

    /** The server of the order, inventory, shipping and orchestrator databases. Required. */
    public Builder postgres(DatabaseServer postgres) {
      this.postgres = postgres;
      return this;
    }

    /** The server of the payment database (MariaDB, say); default the PostgreSQL one. */
    public Builder paymentDatabase(DatabaseServer payment) {
      this.payment = payment;
      return this;
    }

    /** The Kafka cluster; the system creates its own topics there. Required. */
    public Builder kafka(KafkaBroker kafka) {
      this.kafka = kafka;
      return this;
    }

    /** The shipping service's carrier; default one that never fails. */
    public Builder carrier(ShippingService.Carrier carrier) {
      this.carrier = carrier;
      return this;
    }

    /** How long a saga step waits for its reply before its command is sent again; default 10 s. */
    public Builder stepTimeout(Duration stepTimeout) {
      this.stepTimeout = stepTimeout;
      return this;
    }

    /**
     * How often the relays look for new outbox rows besides PostgreSQL's notifications; default 200
     * ms (a quarter of it on MariaDB, which has no notifications).
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return this;
    }

    /**
     * Whether an orchestrator instance runs in this JVM (default); with false, only the engine to
     * start and read sagas is here, and {@link OrchestratorMain} processes must run them.
     */
    public Builder orchestratorInProcess(boolean orchestratorInProcess) {
      this.orchestratorInProcess = orchestratorInProcess;
      return this;
    }

    /** Worker lanes of each participant's consumer; default 4. */
    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /** The topic prefix; default {@code tandem.checkout-<random>.}. */
    public Builder topicPrefix(String topicPrefix) {
      this.topicPrefix = topicPrefix;
      return this;
    }

    /**
     * Creates the databases and topics and starts every service.
     *
     * @throws IllegalArgumentException naming a missing or invalid setting
     */
    public CheckoutSystem start() throws SQLException {
      if (postgres == null || kafka == null) {
        throw new IllegalArgumentException("postgres and kafka are required");
      }
      if (!(postgres instanceof io.tandem.testkit.PostgresServer)) {
        throw new IllegalArgumentException(
            "postgres must be a PostgreSQL server (the services use its SQL), was " + postgres);
      }
      if (carrier == null) {
        throw new IllegalArgumentException("carrier must not be null");
      }
      if (stepTimeout == null || stepTimeout.isNegative() || stepTimeout.isZero()) {
        throw new IllegalArgumentException("stepTimeout must be positive, was " + stepTimeout);
      }
      if (pollInterval == null || pollInterval.toMillis() < 4) {
        throw new IllegalArgumentException(
            "pollInterval must be at least 4 ms, was " + pollInterval);
      }
      if (concurrency < 1 || concurrency > 64) {
        throw new IllegalArgumentException(
            "concurrency must be between 1 and 64, was " + concurrency);
      }
      if (payment == null) {
        payment = postgres;
      }
      String prefix =
          topicPrefix != null
              ? topicPrefix
              : "tandem.checkout-"
                  + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36)
                  + ".";
      CheckoutSystem system =
          new CheckoutSystem(
              new KafkaTopology(kafka.bootstrapServers(), prefix, kafka.clientProperties()),
              payment instanceof MariaDbServer);
      try {
        system.start(this);
      } catch (SQLException | RuntimeException e) {
        try {
          system.close();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      return system;
    }
  }
}
