package io.tandem.examples.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.saga.SagaInstance;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.SagaStepRecord;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * The checkout saga end to end: real PostgreSQL databases (the payment service's on MariaDB when
 * one answers), the real Kafka broker, the orchestrator in this JVM.
 */
class CheckoutSagaTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String GOOD_CARD = "4242424242424242";
  private static final String DECLINED_CARD = "4000000000000002";
  private static final AtomicInteger ORDERS = new AtomicInteger();

  static ScriptedCarrier carrier = new ScriptedCarrier();
  static CheckoutSystem system;

  @BeforeAll
  static void start() throws Exception {
    system =
        CheckoutSystem.builder()
            .postgres(TestInfrastructure.postgres())
            .paymentDatabase(paymentServer())
            .kafka(TestInfrastructure.kafka())
            .carrier(carrier)
            .stepTimeout(Duration.ofSeconds(20)) // no resend on a loaded machine: exact logs
            .start();
    assertThat(system.awaitReady(WAIT)).isTrue();
  }

  /** MariaDB when one answers, else PostgreSQL. */
  static DatabaseServer paymentServer() {
    try {
      return TestInfrastructure.mariadb();
    } catch (TestAbortedException noMariaDb) {
      return TestInfrastructure.postgres();
    }
  }

  @AfterAll
  static void stop() {
    if (system != null) {
      system.close();
    }
  }

  @AfterEach
  void invariantsHold() throws Exception {
    CheckoutInvariants invariants = system.invariants();
    assertThat(invariants.violations()).isEmpty();
    assertThat(invariants.ok()).isTrue();
  }

  @Test
  void aCheckoutCompletesWithEveryStepOnceAndTheOrderConfirmed() throws Exception {
    system.inventory().addProduct("book", 10);
    Checkout checkout = checkout("book", 2, GOOD_CARD);

    SagaInstance saga = awaitEnd(system.checkout(checkout));

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPLETED);
    assertThat(forwardSteps(saga))
        .containsExactly(
            "create-order SUCCEEDED",
            "authorize-payment SUCCEEDED",
            "reserve-inventory SUCCEEDED",
            "request-shipping SUCCEEDED",
            "approve-order SUCCEEDED");
    assertThat(saga.data()).contains("\"paymentId\"", "\"reservationId\"", "\"shipmentId\"");
    Order order = system.orders().find(checkout.orderId()).orElseThrow();
    assertThat(order.status()).isEqualTo(Order.CONFIRMED);
    assertThat(order.sagaId()).isEqualTo(saga.id());
    assertThat(system.inventory().stock("book")).isEqualTo(8);
  }

  @Test
  void aDeclinedPaymentCancelsTheOrder() throws Exception {
    system.inventory().addProduct("pen", 10);
    Checkout checkout = checkout("pen", 1, DECLINED_CARD);

    SagaInstance saga = awaitEnd(system.checkout(checkout));

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(saga.lastError()).hasValueSatisfying(e -> assertThat(e).contains("card declined"));
    assertThat(log(saga))
        .containsExactly(
            "create-order CreatePendingOrder SUCCEEDED",
            "authorize-payment AuthorizePayment FAILED",
            "create-order CancelOrder SUCCEEDED");
    assertThat(system.orders().find(checkout.orderId()).orElseThrow().status())
        .isEqualTo(Order.CANCELLED);
    assertThat(system.inventory().stock("pen")).isEqualTo(10);
  }

  @Test
  void outOfStockAtThePivotRefundsThePaymentThenCancelsTheOrder() throws Exception {
    system.inventory().addProduct("lamp", 1);
    Checkout checkout = checkout("lamp", 2, GOOD_CARD);
    long netBefore = system.payments().netChargedCents();

    SagaInstance saga = awaitEnd(system.checkout(checkout));

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(saga.lastError()).hasValueSatisfying(e -> assertThat(e).contains("out of stock"));
    assertThat(log(saga))
        .as("compensations in reverse order: the refund first, then the cancellation")
        .containsExactly(
            "create-order CreatePendingOrder SUCCEEDED",
            "authorize-payment AuthorizePayment SUCCEEDED",
            "reserve-inventory ReserveInventory FAILED",
            "authorize-payment RefundPayment SUCCEEDED",
            "create-order CancelOrder SUCCEEDED");
    assertThat(system.orders().find(checkout.orderId()).orElseThrow().status())
        .isEqualTo(Order.CANCELLED);
    assertThat(system.payments().netChargedCents()).isEqualTo(netBefore);
    assertThat(system.inventory().stock("lamp")).isEqualTo(1);
  }

  @Test
  void shippingIsRetriedThroughTransientCarrierFailuresAndTheCheckoutCompletes() throws Exception {
    system.inventory().addProduct("mug", 5);
    Checkout checkout = checkout("mug", 1, GOOD_CARD);
    carrier.failFirst(checkout.orderId(), 3);

    SagaInstance saga = awaitEnd(system.checkout(checkout));

    assertThat(saga.status()).isEqualTo(SagaStatus.COMPLETED);
    assertThat(carrier.calls(checkout.orderId())).isEqualTo(4);
    assertThat(
            saga.steps().stream()
                .filter(s -> s.step().equals(CheckoutSaga.REQUEST_SHIPPING))
                .map(s -> s.attempt() + " " + s.outcome()))
        .as("the orchestrator retried the retriable step after each failure reply")
        .containsExactly("1 FAILED", "2 FAILED", "3 FAILED", "4 SUCCEEDED");
    assertThat(system.orders().find(checkout.orderId()).orElseThrow().status())
        .isEqualTo(Order.CONFIRMED);
  }

  @Test
  void aPendingOrderRefusesASecondCheckoutAndChangesUntilItsSagaEnds() throws Exception {
    system.inventory().addProduct("chair", 5);
    Checkout checkout = checkout("chair", 1, GOOD_CARD);
    carrier.down(checkout.orderId()); // holds the first saga after its pivot, order PENDING
    UUID first = system.checkout(checkout);
    await().atMost(WAIT).until(() -> carrier.calls(checkout.orderId()) > 0);
    Order pending = system.orders().find(checkout.orderId()).orElseThrow();
    assertThat(pending.status()).isEqualTo(Order.PENDING);

    assertThatThrownBy(
            () -> system.orders().changeAddress(checkout.orderId(), pending.version(), "2 Elm St"))
        .isInstanceOf(OrderLockedException.class)
        .hasMessageContaining("PENDING in checkout " + first);
    SagaInstance second = awaitEnd(system.checkout(checkout));
    assertThat(second.status()).isEqualTo(SagaStatus.COMPENSATED);
    assertThat(second.lastError()).hasValueSatisfying(e -> assertThat(e).contains("semantic lock"));
    assertThat(log(second)).containsExactly("create-order CreatePendingOrder FAILED");
    assertThat(system.orders().find(checkout.orderId()).orElseThrow())
        .as("the refused checkout left the first one's order alone")
        .isEqualTo(pending);

    carrier.up(checkout.orderId());
    assertThat(awaitEnd(first).status()).isEqualTo(SagaStatus.COMPLETED);
    Order confirmed = system.orders().find(checkout.orderId()).orElseThrow();
    assertThat(confirmed.status()).isEqualTo(Order.CONFIRMED);
    assertThatThrownBy(
            () -> system.orders().changeAddress(checkout.orderId(), pending.version(), "2 Elm St"))
        .as("a change based on a stale version is refused")
        .hasMessageContaining("read it again");
    assertThat(system.orders().changeAddress(checkout.orderId(), confirmed.version(), "2 Elm St"))
        .isEqualTo(confirmed.version() + 1);
    assertThat(system.inventory().stock("chair")).isEqualTo(4);
  }

  @Test
  void concurrentCheckoutsOfTheLastUnitsNeverOversell() throws Exception {
    system.inventory().addProduct("ticket", 5);
    List<UUID> sagas = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      sagas.add(system.checkout(checkout("ticket", 1, GOOD_CARD)));
    }

    List<SagaInstance> ended = new ArrayList<>();
    for (UUID id : sagas) {
      ended.add(awaitEnd(id));
    }

    assertThat(ended.stream().filter(s -> s.status() == SagaStatus.COMPLETED)).hasSize(5);
    assertThat(ended.stream().filter(s -> s.status() == SagaStatus.COMPENSATED))
        .hasSize(7)
        .allSatisfy(s -> assertThat(s.lastError().orElseThrow()).contains("out of stock"));
    assertThat(system.inventory().stock("ticket")).isZero();
  }

  private static Checkout checkout(String sku, int quantity, String card) {
    int n = ORDERS.incrementAndGet();
    return new Checkout(
        "order-" + UUID.randomUUID(),
        "customer-" + (n % 3),
        sku,
        quantity,
        quantity * 1250L,
        card,
        n + " Main Street");
  }

  private static SagaInstance awaitEnd(UUID sagaId) {
    return await()
        .atMost(WAIT)
        .until(
            () -> system.sagas().find(sagaId).orElseThrow(),
            s -> s.status().terminal() || s.status() == SagaStatus.STUCK);
  }

  /** The step log as "step command outcome", in the order the commands were sent. */
  private static List<String> log(SagaInstance saga) {
    return saga.steps().stream()
        .map(s -> s.step() + " " + s.command() + " " + s.outcome())
        .toList();
  }

  private static List<String> forwardSteps(SagaInstance saga) {
    return saga.steps().stream()
        .filter(s -> !s.compensation())
        .map((SagaStepRecord s) -> s.step() + " " + s.outcome())
        .toList();
  }
}
