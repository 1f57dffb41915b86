package io.tandem.examples.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.ConfiguredFaults;
import io.tandem.core.FaultInjector;
import io.tandem.saga.SagaInstance;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.SagaStepRecord;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checkout's orchestrator, in its own process, is killed with {@code SIGKILL} right after the
 * commit of its N-th step transition (the fault {@code orchestrator.after-step=kill@N}: the process
 * runs {@code kill -KILL} on itself at that point), for every transition of a checkout that
 * completes and of one that compensates. Another orchestrator process, started afterwards, carries
 * the saga on from the database: it ends as it would have without the kill, every step and every
 * compensation applied once, and the services' invariants hold.
 *
 * <p>The saga is started by this JVM (the start transition is this process's commit); the
 * orchestrator process makes the transitions that follow each reply: five for a completed checkout
 * (one per forward step), five for one out of stock at the pivot (create-order, authorize-payment,
 * the failed reservation that starts the compensation, the refund, the cancellation).
 */
@Tag("slow")
class OrchestratorKilledAtEachStepBoundaryTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String STEP_TIMEOUT = "PT60S"; // no resend while the group changes hands
  private static final List<String> COMPLETED_LOG =
      List.of(
          "create-order CreatePendingOrder SUCCEEDED",
          "authorize-payment AuthorizePayment SUCCEEDED",
          "reserve-inventory ReserveInventory SUCCEEDED",
          "request-shipping RequestShipping SUCCEEDED",
          "approve-order ApproveOrder SUCCEEDED");
  private static final List<String> COMPENSATED_LOG =
      List.of(
          "create-order CreatePendingOrder SUCCEEDED",
          "authorize-payment AuthorizePayment SUCCEEDED",
          "reserve-inventory ReserveInventory FAILED",
          "authorize-payment RefundPayment SUCCEEDED",
          "create-order CancelOrder SUCCEEDED");

  static CheckoutSystem system;

  @BeforeAll
  static void start() throws Exception {
    system =
        CheckoutSystem.builder()
            .postgres(TestInfrastructure.postgres())
            .paymentDatabase(CheckoutSagaTest.paymentServer())
            .kafka(TestInfrastructure.kafka())
            .stepTimeout(Duration.parse(STEP_TIMEOUT))
            .orchestratorInProcess(false)
            .start();
    assertThat(system.awaitReady(WAIT)).isTrue();
    system.inventory().addProduct("kettle", 1000);
    system.inventory().addProduct(CheckoutDemo.SOLD_OUT, 0);
  }

  @AfterAll
  static void stop() {
    if (system != null) {
      system.close();
    }
  }

  @ParameterizedTest(name = "{0}: killed after transition {1}")
  @CsvSource({
    "completes, 1", "completes, 2", "completes, 3", "completes, 4", "completes, 5",
    "out of stock, 1", "out of stock, 2", "out of stock, 3", "out of stock, 4", "out of stock, 5"
  })
  void aSigkillAfterAnyTransitionIsCarriedOnByAnotherProcess(String path, int transition)
      throws Exception {
    boolean outOfStock = path.equals("out of stock");
    Checkout checkout =
        new Checkout(
            "order-" + UUID.randomUUID(),
            "customer-" + transition,
            outOfStock ? CheckoutDemo.SOLD_OUT : "kettle",
            1,
            2400,
            "4242424242424242",
            transition + " Kill Street");
    long stockBefore = system.inventory().stock("kettle");
    long netChargedBefore = system.payments().netChargedCents();
    String fault = FaultInjector.ORCHESTRATOR_AFTER_STEP + "=kill@" + transition;

    UUID id;
    SagaInstance atKill;
    try (JvmProcess doomed =
        OrchestratorProcess.start(
            system,
            "doomed-" + transition + (outOfStock ? "-oos" : ""),
            STEP_TIMEOUT,
            List.of("-D" + ConfiguredFaults.PROPERTY + "=" + fault))) {
      id = system.checkout(checkout);
      assertThat(doomed.awaitExit(WAIT)).as("killed by SIGKILL: 128 + 9").isEqualTo(137);
      assertThat(doomed.output())
          .contains(ConfiguredFaults.FIRED + " " + FaultInjector.ORCHESTRATOR_AFTER_STEP + " kill")
          .doesNotContain(ConfiguredFaults.KILL_FAILED);
      atKill = system.sagas().find(id).orElseThrow();
    }
    long repliedAtKill = atKill.steps().stream().filter(s -> s.endedAt().isPresent()).count();
    System.out.printf(
        "%s, kill@%d: %d replies handled at the kill, saga %s%n",
        path, transition, repliedAtKill, atKill.status());
    assertThat(repliedAtKill)
        .as("the process died right after its transition %d, not before", transition)
        .isGreaterThanOrEqualTo(transition);

    SagaInstance ended;
    try (JvmProcess replacement =
        OrchestratorProcess.start(
            system, "replacement-" + transition + (outOfStock ? "-oos" : ""), STEP_TIMEOUT)) {
      ended =
          await()
              .atMost(WAIT)
              .until(
                  () -> system.sagas().find(id).orElseThrow(),
                  s -> s.status().terminal() || s.status() == SagaStatus.STUCK);
      assertThat(replacement.isAlive()).isTrue();
    }

    assertThat(ended.status())
        .isEqualTo(outOfStock ? SagaStatus.COMPENSATED : SagaStatus.COMPLETED);
    assertThat(ended.steps().stream().map(OrchestratorKilledAtEachStepBoundaryTest::line))
        .as("every command sent once and answered once")
        .containsExactlyElementsOf(outOfStock ? COMPENSATED_LOG : COMPLETED_LOG);
    Order order = system.orders().find(checkout.orderId()).orElseThrow();
    assertThat(order.status()).isEqualTo(outOfStock ? Order.CANCELLED : Order.CONFIRMED);
    assertThat(system.payments().netChargedCents() - netChargedBefore)
        .as("charged once and kept, or charged once and refunded once")
        .isEqualTo(outOfStock ? 0 : checkout.amountCents());
    assertThat(system.inventory().stock("kettle")).isEqualTo(stockBefore - (outOfStock ? 0 : 1));
    CheckoutInvariants invariants = system.invariants();
    assertThat(invariants.violations()).isEmpty();
  }

  private static String line(SagaStepRecord s) {
    return s.step() + " " + s.command() + " " + s.outcome();
  }
}
