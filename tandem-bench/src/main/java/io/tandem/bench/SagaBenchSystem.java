package io.tandem.bench;

import io.tandem.core.FaultInjector;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaOrchestrator;
import io.tandem.saga.SagaParticipant;
import io.tandem.saga.StepResult;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The checkout saga of the saga benchmark, wired as a real deployment would be: the orchestrator
 * and the four participants each have their own database on the same PostgreSQL server, their own
 * outbox relay to Kafka and their own consumer runner; they share nothing but the broker.
 *
 * <p>Each participant's command does one small business write besides what the saga machinery
 * writes (inbox record, participation record, reply in the outbox): order inserts the pending
 * order, payment inserts the authorisation, inventory decrements one of {@value #SKUS} stock rows,
 * shipping inserts the shipment. Everything succeeds.
 */
final class SagaBenchSystem implements AutoCloseable {
  static final String SAGA_TYPE = "checkout";
  static final String REPLIES = "checkout-replies";
  static final List<String> PARTICIPANTS = List.of("order", "payment", "inventory", "shipping");
  static final int SKUS = 1_000;
  static final int PARTITIONS = 4;

  /** The saga data every command carries. */
  public record Checkout(
      String orderId, String customer, String sku, int quantity, long amountCents) {}

  static final SagaDefinition<Checkout> CHECKOUT =
      SagaDefinition.builder(SAGA_TYPE, Checkout.class)
          .compensatable("create-order", "order", "CreatePendingOrder", "CancelOrder")
          .compensatable("authorize-payment", "payment", "AuthorizePayment", "RefundPayment")
          .pivot("reserve-inventory", "inventory", "ReserveInventory")
          .retriable("request-shipping", "shipping", "RequestShipping")
          .build();

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final List<InboxProcessor> processors = new ArrayList<>();
  private final AtomicLong relayMarks = new AtomicLong();
  final List<BenchDatabase> databases = new ArrayList<>();
  BenchDatabase orchestratorDb;

  /** The orchestrator instances: threads of this JVM sharing the saga tables. */
  final List<SagaOrchestrator> orchestrators = new ArrayList<>();

  final SagaDriver.Ends ends = new SagaDriver.Ends();

  private final Map<String, String> kafkaClient;

  private SagaBenchSystem(Map<String, String> kafkaClient) {
    this.kafkaClient = kafkaClient;
  }

  /**
   * Creates the five databases, tables and topics and starts relays, consumers and the timer.
   *
   * @param extraConnections connections each pool keeps for the commit measurement
   */
  static SagaBenchSystem start(
      PostgresServer postgres,
      String bootstrap,
      Map<String, String> kafkaClient,
      String topicPrefix,
      int lanes,
      int starters,
      int extraConnections,
      int orchestratorCount)
      throws SQLException {
    SagaBenchSystem system = new SagaBenchSystem(Map.copyOf(kafkaClient));
    try {
      system.startAll(
          postgres, bootstrap, topicPrefix, lanes, starters, extraConnections, orchestratorCount);
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

  private void startAll(
      PostgresServer postgres,
      String bootstrap,
      String prefix,
      int lanes,
      int starters,
      int extraConnections,
      int orchestratorCount)
      throws SQLException {
    KafkaBroker kafka = KafkaBroker.external(bootstrap, kafkaClient);
    for (String participant : PARTICIPANTS) {
      kafka.createTopic(prefix + participant, PARTITIONS);
    }
    kafka.createTopic(prefix + REPLIES, PARTITIONS);

    // relay: worker, two publishers, listener, leases; consumer: one connection per lane
    int base = lanes + 6 + extraConnections;
    orchestratorDb =
        database(postgres, "bench_saga_orchestrator", orchestratorCount * (base + 2) + starters);
    for (int i = 0; i < orchestratorCount; i++) {
      // Instances share the name: it is their inbox's consumer name and the reply topic's group.
      SagaOrchestrator instance =
          SagaOrchestrator.builder()
              .dataSource(orchestratorDb.pool)
              .name("checkout-orchestrator")
              .replyTo(REPLIES)
              .definition(CHECKOUT)
              .afterEnd(ends::ended)
              .build();
      resources.push(instance);
      orchestrators.add(instance);
      if (i == 0) {
        relay(orchestratorDb, "orchestrator", bootstrap, prefix);
      }
      consume(instance.replyProcessor(), REPLIES, bootstrap, prefix, lanes);
    }

    BenchDatabase order = database(postgres, "bench_saga_order", base);
    order.execute(
        "CREATE TABLE bench_order (order_id text PRIMARY KEY, saga_id uuid NOT NULL,"
            + " customer text NOT NULL, amount_cents bigint NOT NULL, status text NOT NULL)");
    participant(
        order,
        SagaParticipant.builder()
            .dataSource(order.pool)
            .name("order")
            .command(
                "CreatePendingOrder",
                (conn, cmd) -> {
                  Checkout c = cmd.dataAs(Checkout.class);
                  update(
                      conn,
                      "INSERT INTO bench_order (order_id, saga_id, customer, amount_cents, status)"
                          + " VALUES (?, ?, ?, ?, 'PENDING')",
                      c.orderId(),
                      cmd.sagaId(),
                      c.customer(),
                      c.amountCents());
                  return StepResult.success();
                })
            .compensation(
                "CancelOrder",
                (conn, cmd) -> {
                  update(
                      conn,
                      "UPDATE bench_order SET status = 'CANCELLED' WHERE saga_id = ?",
                      cmd.sagaId());
                  return StepResult.success();
                })
            .build(),
        bootstrap,
        prefix,
        lanes);

    BenchDatabase payment = database(postgres, "bench_saga_payment", base);
    payment.execute(
        "CREATE TABLE bench_payment (payment_id uuid PRIMARY KEY, saga_id uuid NOT NULL,"
            + " amount_cents bigint NOT NULL, status text NOT NULL)");
    participant(
        payment,
        SagaParticipant.builder()
            .dataSource(payment.pool)
            .name("payment")
            .command(
                "AuthorizePayment",
                (conn, cmd) -> {
                  UUID paymentId = UUID.randomUUID();
                  update(
                      conn,
                      "INSERT INTO bench_payment (payment_id, saga_id, amount_cents, status)"
                          + " VALUES (?, ?, ?, 'AUTHORIZED')",
                      paymentId,
                      cmd.sagaId(),
                      cmd.dataAs(Checkout.class).amountCents());
                  return StepResult.success(Map.of("paymentId", paymentId.toString()));
                })
            .compensation(
                "RefundPayment",
                (conn, cmd) -> {
                  update(
                      conn,
                      "UPDATE bench_payment SET status = 'REFUNDED' WHERE saga_id = ?",
                      cmd.sagaId());
                  return StepResult.success();
                })
            .build(),
        bootstrap,
        prefix,
        lanes);

    BenchDatabase inventory = database(postgres, "bench_saga_inventory", base);
    inventory.execute("CREATE TABLE bench_stock (sku text PRIMARY KEY, available bigint NOT NULL)");
    inventory.execute(
        "INSERT INTO bench_stock SELECT 'sku-' || g, 1000000000000 FROM generate_series(0, "
            + (SKUS - 1)
            + ") g");
    participant(
        inventory,
        SagaParticipant.builder()
            .dataSource(inventory.pool)
            .name("inventory")
            .command(
                "ReserveInventory",
                (conn, cmd) -> {
                  Checkout c = cmd.dataAs(Checkout.class);
                  int rows =
                      update(
                          conn,
                          "UPDATE bench_stock SET available = available - ?"
                              + " WHERE sku = ? AND available >= ?",
                          c.quantity(),
                          c.sku(),
                          c.quantity());
                  return rows == 1 ? StepResult.success() : StepResult.failure("out of stock");
                })
            .build(),
        bootstrap,
        prefix,
        lanes);

    BenchDatabase shipping = database(postgres, "bench_saga_shipping", base);
    shipping.execute(
        "CREATE TABLE bench_shipment (shipment_id uuid PRIMARY KEY, saga_id uuid NOT NULL,"
            + " order_id text NOT NULL)");
    participant(
        shipping,
        SagaParticipant.builder()
            .dataSource(shipping.pool)
            .name("shipping")
            .command(
                "RequestShipping",
                (conn, cmd) -> {
                  UUID shipmentId = UUID.randomUUID();
                  update(
                      conn,
                      "INSERT INTO bench_shipment (shipment_id, saga_id, order_id)"
                          + " VALUES (?, ?, ?)",
                      shipmentId,
                      cmd.sagaId(),
                      cmd.dataAs(Checkout.class).orderId());
                  return StepResult.success(Map.of("shipmentId", shipmentId.toString()));
                })
            .build(),
        bootstrap,
        prefix,
        lanes);

    orchestrators.forEach(SagaOrchestrator::startTimer);
  }

  private BenchDatabase database(PostgresServer postgres, String prefix, int poolSize) {
    BenchDatabase db = new BenchDatabase(postgres, prefix, poolSize);
    databases.add(db);
    return db;
  }

  private void participant(
      BenchDatabase db, SagaParticipant participant, String bootstrap, String prefix, int lanes) {
    run(
        db,
        participant.name(),
        participant.processor(),
        participant.name(),
        bootstrap,
        prefix,
        lanes);
  }

  /** The relay of {@code db} and a consumer runner of {@code processor} on {@code inbound}. */
  private void run(
      BenchDatabase db,
      String service,
      InboxProcessor processor,
      String inbound,
      String bootstrap,
      String prefix,
      int lanes) {
    relay(db, service, bootstrap, prefix);
    consume(processor, inbound, bootstrap, prefix, lanes);
  }

  private void relay(BenchDatabase db, String service, String bootstrap, String prefix) {
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(bootstrap)
            .clientProperties(kafkaClient)
            .source("/tandem/bench/" + service)
            .topicRouter(TopicRouter.byAggregateType(prefix))
            .build();
    resources.push(transport);
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.pool)
            .transport(transport)
            .relayId(service + "-relay")
            .faultInjector(
                point -> {
                  if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
                    relayMarks.incrementAndGet(); // one marking transaction follows
                  }
                })
            .build();
    relay.start();
    resources.push(relay);
  }

  private void consume(
      InboxProcessor processor, String inbound, String bootstrap, String prefix, int lanes) {
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(
                KafkaMessageSource.builder()
                    .bootstrapServers(bootstrap)
                    .clientProperties(kafkaClient)
                    .groupId(prefix + processor.consumer())
                    .topics(List.of(prefix + inbound))
                    .build())
            .processor(processor)
            .concurrency(lanes)
            .build();
    runner.start();
    resources.push(runner);
    processors.add(processor);
  }

  private static int update(Connection conn, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      return ps.executeUpdate();
    }
  }

  /**
   * Checks that every participant applied each of {@code sagas} sagas exactly once: one
   * participation record per saga and participant, one business row per saga where the step inserts
   * one.
   *
   * @throws IllegalStateException naming the first count that differs
   */
  void verify(long sagas) throws SQLException {
    SagaBenchVerification.verify(databases, sagas);
  }

  /** Transactions the five consumers committed (messages applied or recognised as duplicates). */
  long consumerTransactions() {
    long n = 0;
    for (InboxProcessor p : processors) {
      n += p.appliedCount() + p.duplicateCount();
    }
    return n;
  }

  /** Messages the consumers dead-lettered (none expected). */
  long deadLettered() {
    long n = 0;
    for (InboxProcessor p : processors) {
      n += p.deadLetteredCount();
    }
    return n;
  }

  /** Marking transactions of the five relays (one per published batch). */
  long relayMarks() {
    return relayMarks.get();
  }

  /** Outbox rows not yet published, over the five databases. */
  long pending() throws SQLException {
    long n = 0;
    for (BenchDatabase db : databases) {
      n += db.pending();
    }
    return n;
  }

  /** The next transaction id of the server: the number of writing transactions so far. */
  long nextServerXid() throws SQLException {
    try (Connection c = orchestratorDb.pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The process id of the server's postmaster (the parent of this run's backends), if visible. */
  Long postmasterPid() throws SQLException {
    try (Connection c = orchestratorDb.pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return ProcessHandle.of(rs.getLong(1))
          .flatMap(ProcessHandle::parent)
          .map(ProcessHandle::pid)
          .orElse(null);
    }
  }

  /** Stops consumers, relays and the timer, last started first, then drops the databases. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (BenchDatabase db : databases) {
      resources.addLast(db);
    }
    databases.clear();
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing the saga benchmark's system failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
