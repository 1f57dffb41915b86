package io.tandem.examples.checkout;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.jdbc.Migrations;
import io.tandem.saga.SagaOrchestrator;
import io.tandem.saga.SagaQueries;
import io.tandem.saga.SagaStatus;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.MariaDbServer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

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
 * separate processes ({@link OrchestratorMain}, with {@link
 * CheckoutSystemBuilder#orchestratorInProcess(boolean) orchestratorInProcess(false)}).
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
  private SagaQueries queries;

  CheckoutSystem(KafkaTopology topology, boolean paymentOnMariaDb) {
    this.topology = topology;
    this.paymentOnMariaDb = paymentOnMariaDb;
  }

  public static CheckoutSystemBuilder builder() {
    return new CheckoutSystemBuilder();
  }

  void start(CheckoutSystemBuilder b) throws SQLException {
    IsolatedDatabase orchestratorDatabase = database(b.postgres, "checkout_orchestrator");
    orchestratorJdbcUrl = orchestratorDatabase.jdbcUrl();
    orchestratorDb = pool(orchestratorDatabase, "orchestrator", 12);
    ordersDb = pool(database(b.postgres, "checkout_orders"), "orders", 8);
    paymentsDb = pool(database(b.payment, "checkout_payments"), "payments", 8);
    inventoryDb = pool(database(b.postgres, "checkout_inventory"), "inventory", 8);
    shippingDb = pool(database(b.postgres, "checkout_shipping"), "shipping", 8);
    queries = SagaQueries.of(orchestratorDb, List.of(CheckoutSaga.definition(b.stepTimeout)));
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
      b.kafka.createTopic(topic, 3);
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

  /**
   * Checkout sagas per status, every status present (0 when none). ({@code SQLException} stays
   * declared for callers written against the earlier JDBC version; failures are {@code
   * JdbcException}s.)
   */
  public Map<SagaStatus, Long> statusCounts() throws SQLException {
    return queries.countByStatus(CheckoutSaga.TYPE);
  }

  /** Every checkout saga's start and end. */
  public List<SagaTime> sagaTimes() throws SQLException {
    List<SagaTime> times = new ArrayList<>();
    queries.forEach(
        CheckoutSaga.TYPE,
        saga -> times.add(new SagaTime(saga.id(), saga.startedAt(), saga.endedAt().orElse(null))));
    return times;
  }

  /** Reads the invariants back from the five databases. */
  public CheckoutInvariants invariants() throws SQLException {
    return CheckoutInvariants.read(queries, ordersDb, paymentsDb, inventoryDb, shippingDb);
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
}
