package io.tandem.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.jdbc.Migrations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.saga.internal.SagaHeaders;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PrometheusScrape;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The orchestration engine end to end on real databases — the orchestrator's and the participants'
 * (separate), each with its outbox relay and inbox — with a broker in memory that can duplicate and
 * hold back messages. The checkout reference system runs the same on Kafka.
 */
class SagaEngineTest {
  /** The saga data. */
  public record Checkout(String orderId, long amount, boolean decline, boolean outOfStock) {}

  private IsolatedDatabase orchestratorDb;
  private IsolatedDatabase participantsDb;
  private LoopbackBus bus;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final AtomicInteger shippingFailures = new AtomicInteger();
  private final AtomicInteger refundFailures = new AtomicInteger();
  private SagaOrchestrator orchestrator;
  private MeterRegistry meters = new SimpleMeterRegistry();

  @BeforeEach
  void world() throws Exception {
    orchestratorDb = TestInfrastructure.postgres().createDatabase("saga_orchestrator");
    participantsDb = TestInfrastructure.postgres().createDatabase("saga_participants");
    Migrations.migrate(orchestratorDb.dataSource());
    Migrations.migrate(participantsDb.dataSource());
    try (Connection c = participantsDb.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE effect (seq bigserial PRIMARY KEY, participant text NOT NULL,"
              + " saga_id uuid NOT NULL, action text NOT NULL)");
    }
    bus = new LoopbackBus();
  }

  private SagaDefinition.Builder<Checkout> checkout() {
    return SagaDefinition.builder("checkout", Checkout.class)
        .compensatable("create-order", "order", "CreatePendingOrder", "CancelOrder")
        .compensatable("authorize-payment", "payment", "AuthorizePayment", "RefundPayment")
        .pivot("reserve-inventory", "inventory", "ReserveInventory")
        .retriable("request-shipping", "shipping", "RequestShipping")
        .retryPolicy(
            RetryPolicy.builder().base(Duration.ofMillis(20)).cap(Duration.ofMillis(100)).build())
        .stepTimeout(Duration.ofSeconds(20));
  }

  private void run(SagaDefinition<Checkout> definition) {
    DataSource pds = participantsDb.dataSource();
    orchestrator =
        SagaOrchestrator.builder()
            .dataSource(orchestratorDb.dataSource())
            .name("checkout-orchestrator")
            .replyTo("checkout-replies")
            .definition(definition)
            .timerInterval(Duration.ofMillis(50))
            .meterRegistry(meters)
            .build();
    bus.route("checkout-replies", orchestrator.replyProcessor());
    participant("order", "CreatePendingOrder", "CancelOrder", cmd -> StepResult.success(), pds);
    participant(
        "payment",
        "AuthorizePayment",
        "RefundPayment",
        cmd ->
            cmd.dataAs(Checkout.class).decline()
                ? StepResult.failure("card declined")
                : StepResult.success(Map.of("paymentId", "pay-" + cmd.sagaId())),
        pds);
    participant(
        "inventory",
        "ReserveInventory",
        null,
        cmd ->
            cmd.dataAs(Checkout.class).outOfStock()
                ? StepResult.failure("out of stock")
                : StepResult.success(),
        pds);
    participant(
        "shipping",
        "RequestShipping",
        null,
        cmd ->
            shippingFailures.getAndDecrement() > 0
                ? StepResult.failure("carrier busy")
                : StepResult.success(),
        pds);
    relay(orchestratorDb.dataSource(), "orchestrator-relay");
    relay(pds, "participants-relay");
    orchestrator.startTimer();
    closeables.add(orchestrator);
  }

  private interface Decision {
    StepResult decide(SagaCommand command);
  }

  private void participant(
      String name, String command, String compensation, Decision decision, DataSource ds) {
    SagaParticipant.Builder b =
        SagaParticipant.builder()
            .dataSource(ds)
            .name(name)
            .command(
                command,
                (conn, cmd) -> {
                  StepResult result = decision.decide(cmd);
                  if (result.succeeded()) {
                    effect(conn, name, cmd.sagaId(), command);
                  }
                  return result;
                });
    if (compensation != null) {
      b.compensation(
          compensation,
          (conn, cmd) -> {
            if (compensation.equals("RefundPayment") && refundFailures.getAndDecrement() > 0) {
              return StepResult.failure("bank unavailable");
            }
            effect(conn, name, cmd.sagaId(), compensation);
            return StepResult.success();
          });
    }
    bus.route(name, b.build().processor());
  }

  private static void effect(Connection c, String participant, UUID saga, String action)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO effect (participant, saga_id, action) VALUES (?, ?, ?)")) {
      ps.setString(1, participant);
      ps.setObject(2, saga);
      ps.setString(3, action);
      ps.executeUpdate();
    }
  }

  private List<String> effects(UUID saga) throws SQLException {
    List<String> actions = new ArrayList<>();
    try (Connection c = participantsDb.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT action FROM effect WHERE saga_id = ? ORDER BY seq")) {
      ps.setObject(1, saga);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          actions.add(rs.getString(1));
        }
      }
    }
    return actions;
  }

  private void relay(DataSource ds, String id) {
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(ds)
            .transport(bus)
            .relayId(id)
            .pollInterval(Duration.ofMillis(50))
            .build();
    relay.start();
    closeables.add(relay);
  }

  @AfterEach
  void close() {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // best effort
      }
    }
    bus.close();
    orchestratorDb.close();
    participantsDb.close();
  }

  private SagaInstance awaitEnd(UUID id) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              SagaStatus s = orchestrator.find(id).orElseThrow().status();
              return s.terminal() || s == SagaStatus.STUCK;
            });
    return orchestrator.find(id).orElseThrow();
  }

  private static List<String> log(SagaInstance saga) {
    return saga.steps().stream()
        .map(s -> (s.compensation() ? "C:" : "F:") + s.step() + ":" + s.outcome())
        .toList();
  }

  @Test
  void aCheckoutRunsEveryStepAndCompletes() throws Exception {
    run(checkout().build());

    UUID id = orchestrator.start("checkout", new Checkout("o-1", 4200, false, false));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPLETED);
    assertThat(effects(id))
        .containsExactly(
            "CreatePendingOrder", "AuthorizePayment", "ReserveInventory", "RequestShipping");
    assertThat(log(saga))
        .containsExactly(
            "F:create-order:SUCCEEDED",
            "F:authorize-payment:SUCCEEDED",
            "F:reserve-inventory:SUCCEEDED",
            "F:request-shipping:SUCCEEDED");
    assertThat(saga.data()).contains("\"paymentId\":\"pay-" + id + "\"");
    assertThat(saga.endedAt()).isPresent();
  }

  @Test
  void aDeclinedPaymentCancelsTheOrder() throws Exception {
    run(checkout().build());

    UUID id = orchestrator.start("checkout", new Checkout("o-2", 10, true, false));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(effects(id)).containsExactly("CreatePendingOrder", "CancelOrder");
    assertThat(saga.lastError()).hasValueSatisfying(e -> assertThat(e).contains("card declined"));
  }

  @Test
  void outOfStockAtThePivotRefundsThenCancelsInReverseOrder() throws Exception {
    run(checkout().build());

    UUID id = orchestrator.start("checkout", new Checkout("o-3", 10, false, true));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(effects(id))
        .containsExactly("CreatePendingOrder", "AuthorizePayment", "RefundPayment", "CancelOrder");
    assertThat(log(saga))
        .containsExactly(
            "F:create-order:SUCCEEDED",
            "F:authorize-payment:SUCCEEDED",
            "F:reserve-inventory:FAILED",
            "C:authorize-payment:SUCCEEDED",
            "C:create-order:SUCCEEDED");
  }

  @Test
  void aRetriableStepIsRetriedThroughTransientFailures() throws Exception {
    shippingFailures.set(3);
    run(checkout().build());

    UUID id = orchestrator.start("checkout", new Checkout("o-4", 10, false, false));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPLETED);
    assertThat(log(saga).stream().filter(s -> s.startsWith("F:request-shipping")))
        .containsExactly(
            "F:request-shipping:FAILED",
            "F:request-shipping:FAILED",
            "F:request-shipping:FAILED",
            "F:request-shipping:SUCCEEDED");
    assertThat(effects(id)).containsOnlyOnce("RequestShipping");
  }

  @Test
  void aCompensationThatFailsSeveralTimesIsRetriedUntilItSucceeds() throws Exception {
    refundFailures.set(3);
    run(checkout().build());

    UUID id = orchestrator.start("checkout", new Checkout("o-5", 10, false, true));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(log(saga).stream().filter(s -> s.startsWith("C:authorize-payment")))
        .containsExactly(
            "C:authorize-payment:FAILED",
            "C:authorize-payment:FAILED",
            "C:authorize-payment:FAILED",
            "C:authorize-payment:SUCCEEDED");
    assertThat(effects(id))
        .containsExactly("CreatePendingOrder", "AuthorizePayment", "RefundPayment", "CancelOrder");
  }

  @Test
  void aCompensationFailingPastItsLimitMakesTheSagaStuckUntilAnOperatorRetries() throws Exception {
    refundFailures.set(1_000);
    run(checkout().compensationAttempts(3).build());

    UUID id = orchestrator.start("checkout", new Checkout("o-6", 10, false, true));
    SagaInstance stuck = awaitEnd(id);

    assertThat(stuck.status()).isEqualTo(SagaStatus.STUCK);
    assertThat(stuck.lastError())
        .hasValueSatisfying(e -> assertThat(e).contains("bank unavailable"));
    assertThat(orchestrator.list("checkout", SagaStatus.STUCK, Instant.now().plusSeconds(1), 10))
        .extracting(SagaInstance::id)
        .containsExactly(id);

    // an operator's tool, without the saga definitions, sees the same and puts it back
    SagaQueries operator = SagaQueries.of(orchestratorDb.dataSource());
    List<SagaInstance> listed =
        operator.list(null, SagaStatus.STUCK, Instant.now().plusSeconds(1), 10);
    assertThat(listed).extracting(SagaInstance::id).containsExactly(id);
    assertThat(listed.get(0).currentStep())
        .as("named from the step log")
        .isEqualTo(stuck.currentStep())
        .isEqualTo("authorize-payment");
    SagaInstance shown = operator.find(id).orElseThrow();
    assertThat(shown.steps()).isEqualTo(stuck.steps());
    assertThat(shown.currentStep()).isEqualTo("authorize-payment");
    assertThatThrownBy(() -> operator.retryStuck(UUID.randomUUID()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("no saga ");

    refundFailures.set(0); // the bank is back
    operator.retryStuck(id);
    assertThatThrownBy(() -> operator.retryStuck(id))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not STUCK");
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(effects(id))
        .containsExactly("CreatePendingOrder", "AuthorizePayment", "RefundPayment", "CancelOrder");
  }

  /**
   * The saga signals of docs/operations.md, driven for real (a completed, a compensated and a STUCK
   * saga) and read back by their Prometheus names from the text {@code /metrics} serves.
   */
  @Test
  void sagaSignalsReadBackFromThePrometheusScrapeByName() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    meters = registry;
    refundFailures.set(1_000);
    run(checkout().compensationAttempts(3).build());

    SagaInstance completed =
        awaitEnd(orchestrator.start("checkout", new Checkout("m-1", 1, false, false)));
    SagaInstance declined =
        awaitEnd(orchestrator.start("checkout", new Checkout("m-2", 1, true, false)));
    SagaInstance stuck =
        awaitEnd(orchestrator.start("checkout", new Checkout("m-3", 1, false, true)));
    assertThat(List.of(completed.status(), declined.status(), stuck.status()))
        .containsExactly(SagaStatus.COMPLETED, SagaStatus.COMPENSATED, SagaStatus.STUCK);

    try (SagaMetrics gauges =
        SagaMetrics.register(registry, orchestratorDb.dataSource(), Duration.ofMinutes(1))) {
      PrometheusScrape scrape = PrometheusScrape.parse(registry.scrape());
      assertThat(scrape.value("tandem_saga_started_total", "type", "checkout")).isEqualTo(3);
      assertThat(
              scrape.value(
                  "tandem_saga_duration_seconds_count", "type", "checkout", "status", "COMPLETED"))
          .isEqualTo(1);
      assertThat(
              scrape.value(
                  "tandem_saga_duration_seconds_count",
                  "type",
                  "checkout",
                  "status",
                  "COMPENSATED"))
          .isEqualTo(1);
      assertThat(scrape.has("tandem_saga_duration_seconds_bucket", "status", "COMPLETED")).isTrue();
      assertThat(scrape.value("tandem_saga_went_stuck_total", "type", "checkout")).isEqualTo(1);
      long refundsSent =
          log(stuck).stream().filter(s -> s.startsWith("C:authorize-payment")).count();
      assertThat(refundsSent).isEqualTo(3);
      assertThat(
              scrape.value(
                  "tandem_saga_compensations_total",
                  "type",
                  "checkout",
                  "step",
                  "authorize-payment"))
          .isEqualTo(refundsSent);
      assertThat(
              scrape.value(
                  "tandem_saga_compensations_total", "type", "checkout", "step", "create-order"))
          .as("the declined saga cancelled its order")
          .isEqualTo(1);
      for (SagaStatus status :
          List.of(SagaStatus.COMPLETED, SagaStatus.COMPENSATED, SagaStatus.STUCK)) {
        assertThat(
                scrape.value("tandem_saga_instances", "type", "checkout", "status", status.name()))
            .as(status.name())
            .isEqualTo(1);
      }
      assertThat(scrape.value("tandem_saga_stuck")).isEqualTo(1);
      assertThat(scrape.value("tandem_saga_stuck_oldest_age")).isGreaterThanOrEqualTo(0);
      assertThat(scrape.value("tandem_consumer_applied_total", "consumer", "checkout-orchestrator"))
          .as("the orchestrator's replies")
          .isPositive();
    }
  }

  @Test
  void aStepWithoutReplyTimesOutCompensatesEmptilyAndItsLateForwardIsRefused() throws Exception {
    bus.hold = e -> e.eventType().equals("AuthorizePayment"); // every attempt is lost for now
    // Long enough for a reply on a slow, busy machine (400 ms was not, now and then): only the
    // held command may time out.
    run(checkout().stepTimeout(Duration.ofMillis(1500)).forwardAttempts(2).build());

    UUID id = orchestrator.start("checkout", new Checkout("o-7", 10, false, false));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(bus.heldCount()).isEqualTo(2);
    assertThat(log(saga))
        .containsExactly(
            "F:create-order:SUCCEEDED",
            "F:authorize-payment:TIMED_OUT",
            "F:authorize-payment:TIMED_OUT",
            "C:authorize-payment:SUCCEEDED", // empty compensation: nothing had been charged
            "C:create-order:SUCCEEDED");

    bus.hold = e -> false;
    bus.release(); // the lost commands arrive after all: late forwards

    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(orchestrator.replyProcessor().appliedCount())
                    .as("the refusals came back as replies")
                    .isGreaterThanOrEqualTo(5));
    assertThat(effects(id))
        .as("never charged: the late forward was refused")
        .containsExactly("CreatePendingOrder", "CancelOrder");
    assertThat(orchestrator.find(id).orElseThrow().status()).isEqualTo(SagaStatus.COMPENSATED);
  }

  private static boolean replyOf(Event e, String kind, String step) {
    return e.aggregateType().equals("checkout-replies")
        && e.headers().get(SagaHeaders.KIND).orElse("").equals(kind)
        && e.headers().get(SagaHeaders.STEP).orElse("").equals(step);
  }

  @Test
  void aReplyArrivingAfterItsStepTimedOutChangesNothingAndTheAppliedStepIsCompensated()
      throws Exception {
    // the payment is charged, but its replies are late: both attempts time out
    bus.hold = e -> replyOf(e, SagaHeaders.FORWARD, "authorize-payment");
    run(checkout().stepTimeout(Duration.ofMillis(1500)).forwardAttempts(2).build());

    UUID id = orchestrator.start("checkout", new Checkout("o-11", 10, false, false));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    List<String> logAtEnd =
        List.of(
            "F:create-order:SUCCEEDED",
            "F:authorize-payment:TIMED_OUT",
            "F:authorize-payment:TIMED_OUT",
            "C:authorize-payment:SUCCEEDED",
            "C:create-order:SUCCEEDED");
    assertThat(log(saga)).containsExactlyElementsOf(logAtEnd);
    assertThat(effects(id))
        .as("charged once (the resend was answered from the record), refunded once")
        .containsExactly("CreatePendingOrder", "AuthorizePayment", "RefundPayment", "CancelOrder");
    assertThat(bus.heldCount()).isEqualTo(2);

    long appliedBefore = orchestrator.replyProcessor().appliedCount();
    bus.hold = e -> false;
    bus.release(); // the late replies: "succeeded", for commands closed as timed out
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> orchestrator.replyProcessor().appliedCount() >= appliedBefore + 2);

    SagaInstance after = orchestrator.find(id).orElseThrow();
    assertThat(after.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(after.version()).as("the saga row was not written again").isEqualTo(saga.version());
    assertThat(log(after)).containsExactlyElementsOf(logAtEnd);
    assertThat(effects(id))
        .containsExactly("CreatePendingOrder", "AuthorizePayment", "RefundPayment", "CancelOrder");
  }

  @Test
  void anOlderAttemptsFailureArrivingWhileTheNextAttemptRunsChangesNothing() throws Exception {
    shippingFailures.set(1); // the first shipping attempt fails, the second succeeds
    bus.hold = e -> replyOf(e, SagaHeaders.FORWARD, "request-shipping");
    run(checkout().stepTimeout(Duration.ofSeconds(60)).build());

    UUID id = orchestrator.start("checkout", new Checkout("o-12", 10, false, false));
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> bus.heldCount() == 1);
    dueNow(id); // attempt 1 (its "failed" reply held back) times out now: attempt 2 is sent
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> bus.heldCount() == 2);
    SagaInstance waiting = orchestrator.find(id).orElseThrow();
    assertThat(waiting.currentStep()).isEqualTo("request-shipping");
    assertThat(waiting.attempt()).isEqualTo(2);

    long appliedBefore = orchestrator.replyProcessor().appliedCount();
    bus.hold = e -> false;
    bus.releaseFirst(); // attempt 1's "failed", while the saga waits for attempt 2
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> orchestrator.replyProcessor().appliedCount() >= appliedBefore + 1);
    SagaInstance afterStale = orchestrator.find(id).orElseThrow();
    assertThat(afterStale.status()).isEqualTo(SagaStatus.RUNNING);
    assertThat(afterStale.version())
        .as("the stale reply moved nothing")
        .isEqualTo(waiting.version());
    assertThat(afterStale.attempt()).isEqualTo(2);

    bus.release(); // attempt 2's "succeeded"
    SagaInstance saga = awaitEnd(id);
    assertThat(saga.status()).isEqualTo(SagaStatus.COMPLETED);
    assertThat(log(saga))
        .containsExactly(
            "F:create-order:SUCCEEDED",
            "F:authorize-payment:SUCCEEDED",
            "F:reserve-inventory:SUCCEEDED",
            "F:request-shipping:TIMED_OUT",
            "F:request-shipping:SUCCEEDED");
    assertThat(effects(id))
        .containsExactly(
            "CreatePendingOrder", "AuthorizePayment", "ReserveInventory", "RequestShipping");
  }

  /** Makes the saga due for its timer now, as if its step's deadline had passed. */
  private void dueNow(UUID id) throws SQLException {
    try (Connection c = orchestratorDb.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE tandem_saga SET wakeup_at = now() - interval '1 second' WHERE saga_id = ?")) {
      ps.setObject(1, id);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  @Test
  void parallelCompensationRepliesInReverseOrderEndTheSagaOnce() throws Exception {
    bus.hold =
        e ->
            e.headers().get(SagaHeaders.KIND).orElse("").equals(SagaHeaders.COMPENSATION)
                && e.aggregateType().equals("checkout-replies");
    run(checkout().parallelCompensation(true).build());

    UUID id = orchestrator.start("checkout", new Checkout("o-13", 10, false, true));
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> bus.heldCount() == 2);
    assertThat(orchestrator.find(id).orElseThrow().status()).isEqualTo(SagaStatus.COMPENSATING);
    bus.hold = e -> false;
    bus.releaseReversed(); // the later compensation's reply first

    SagaInstance saga = awaitEnd(id);
    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(log(saga).subList(3, 5))
        .containsExactlyInAnyOrder("C:authorize-payment:SUCCEEDED", "C:create-order:SUCCEEDED");
    List<String> effects = effects(id);
    assertThat(effects).hasSize(4);
    assertThat(effects.subList(0, 2)).containsExactly("CreatePendingOrder", "AuthorizePayment");
    assertThat(effects.subList(2, 4))
        .as("compensated once each, in either order: they run at once")
        .containsExactlyInAnyOrder("RefundPayment", "CancelOrder");
  }

  @Test
  void duplicatedDeliveriesOfCommandsAndRepliesChangeNothing() throws Exception {
    bus.duplicateEverything = true;
    run(checkout().build());

    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ids.add(orchestrator.start("checkout", new Checkout("o-d" + i, 10, false, i % 3 == 0)));
    }
    for (UUID id : ids) {
      SagaInstance saga = awaitEnd(id);
      List<String> effects = effects(id);
      if (saga.status() == SagaStatus.COMPLETED) {
        assertThat(effects)
            .containsExactly(
                "CreatePendingOrder", "AuthorizePayment", "ReserveInventory", "RequestShipping");
      } else {
        assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(effects)
            .containsExactly(
                "CreatePendingOrder", "AuthorizePayment", "RefundPayment", "CancelOrder");
      }
    }
    assertThat(orchestrator.replyProcessor().duplicateCount()).isPositive();
  }

  @Tag("slow")
  @ParameterizedTest(name = "dies after transition {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6})
  void anOrchestratorDyingAtAStepBoundaryIsCarriedOnByAnother(int boundary) throws Exception {
    shippingFailures.set(1); // one retry through the timer as well
    SagaDefinition<Checkout> definition = checkout().build();
    run(definition); // the survivor: reply processor routed below, timer running
    SagaOrchestrator survivor = orchestrator;
    AtomicInteger transitions = new AtomicInteger();
    SagaOrchestrator[] doomed = new SagaOrchestrator[1];
    doomed[0] =
        SagaOrchestrator.builder()
            .dataSource(orchestratorDb.dataSource())
            .name("checkout-orchestrator")
            .replyTo("checkout-replies")
            .definition(definition)
            .timerInterval(Duration.ofMillis(50))
            .faultInjector(
                point -> {
                  if (point.equals(FaultInjector.ORCHESTRATOR_AFTER_STEP)
                      && transitions.incrementAndGet() == boundary) {
                    bus.route("checkout-replies", survivor.replyProcessor()); // the group moves on
                    throw new FaultInjector.SimulatedCrash(point);
                  }
                })
            .build();
    bus.route("checkout-replies", doomed[0].replyProcessor());
    doomed[0].startTimer();
    closeables.add(doomed[0]);

    UUID id;
    try {
      id = doomed[0].start("checkout", new Checkout("o-k" + boundary, 10, false, false));
    } catch (FaultInjector.SimulatedCrash crash) {
      id = survivor.list("checkout", null, Instant.now().plusSeconds(5), 10).get(0).id();
    }
    SagaInstance saga = awaitEnd(id);

    assertThat(transitions.get())
        .as("the doomed instance reached the boundary")
        .isGreaterThanOrEqualTo(boundary);
    assertThat(saga.status()).isEqualTo(SagaStatus.COMPLETED);
    assertThat(effects(id))
        .containsExactly(
            "CreatePendingOrder", "AuthorizePayment", "ReserveInventory", "RequestShipping");
  }

  @Test
  void twoOrchestratorsShareTheWorkAndEverySagaEndsOnce() throws Exception {
    shippingFailures.set(5);
    SagaDefinition<Checkout> definition = checkout().build();
    run(definition);
    SagaOrchestrator second =
        SagaOrchestrator.builder()
            .dataSource(orchestratorDb.dataSource())
            .name("checkout-orchestrator")
            .replyTo("checkout-replies")
            .definition(definition)
            .timerInterval(Duration.ofMillis(50))
            .build();
    second.startTimer();
    closeables.add(second);
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      SagaOrchestrator starter = i % 2 == 0 ? orchestrator : second;
      ids.add(starter.start("checkout", new Checkout("o-c" + i, 10, i % 5 == 0, i % 7 == 0)));
    }

    for (UUID id : ids) {
      SagaInstance saga = awaitEnd(id);
      assertThat(saga.status()).isIn(SagaStatus.COMPLETED, SagaStatus.COMPENSATED);
      List<String> effects = effects(id);
      assertThat(effects).doesNotHaveDuplicates();
      if (saga.status() == SagaStatus.COMPLETED) {
        assertThat(effects).endsWith("RequestShipping");
      } else {
        assertThat(effects).endsWith("CancelOrder");
      }
    }
  }

  @Test
  void parallelCompensationSendsAllCompensationsAtOnce() throws Exception {
    run(checkout().parallelCompensation(true).build());

    UUID id = orchestrator.start("checkout", new Checkout("o-8", 10, false, true));
    SagaInstance saga = awaitEnd(id);

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(effects(id)).contains("RefundPayment", "CancelOrder");
    assertThat(log(saga).subList(3, 5))
        .containsExactlyInAnyOrder("C:authorize-payment:SUCCEEDED", "C:create-order:SUCCEEDED");
  }

  @Test
  void anOversizedPayloadIsRefusedAtTheStartNotMidSaga() {
    run(checkout().build());
    String big = "x".repeat(1024 * 1024);

    assertThatThrownBy(() -> orchestrator.start("checkout", new Checkout(big, 1, false, false)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes: every command carries it");
    assertThat(orchestrator.list(null, null, Instant.now().plusSeconds(1), 10)).isEmpty();
    assertThatThrownBy(() -> orchestrator.start("nope", new Checkout("o", 1, false, false)))
        .hasMessageContaining("no saga definition 'nope'");
  }

  @Test
  void finishedSagasArePurgedAfterTheRetentionNeverRunningOnes() throws Exception {
    run(checkout().build());
    UUID done = orchestrator.start("checkout", new Checkout("o-9", 10, false, false));
    awaitEnd(done);
    bus.hold = e -> e.eventType().equals("CreatePendingOrder");
    UUID running = orchestrator.start("checkout", new Checkout("o-10", 10, false, false));

    SagaRetention retention =
        SagaRetention.builder()
            .dataSource(orchestratorDb.dataSource())
            .retention(Duration.ofMillis(1))
            .build();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> retention.dryRun() == 1);
    assertThat(orchestrator.find(done)).as("a dry run deletes nothing").isPresent();
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> retention.run() >= 0 && orchestrator.find(done).isEmpty());
    assertThat(retention.dryRun()).isZero();

    assertThat(orchestrator.find(running)).isPresent();
    assertThat(orchestrator.find(running).orElseThrow().status()).isEqualTo(SagaStatus.RUNNING);
  }
}
