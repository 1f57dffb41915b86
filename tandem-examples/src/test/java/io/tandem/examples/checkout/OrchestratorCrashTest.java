package io.tandem.examples.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.saga.SagaStatus;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The orchestrator runs as its own process and is killed with SIGKILL in the middle of sagas;
 * another instance, started afterwards, carries every saga on from the database.
 */
@Tag("slow")
class OrchestratorCrashTest {
  private static final int CHECKOUTS = 80;

  @Test
  void anOrchestratorKilledMidSagaIsReplacedByAnotherThatEndsEverySaga() throws Exception {
    try (CheckoutSystem system =
        CheckoutSystem.builder()
            .postgres(TestInfrastructure.postgres())
            .paymentDatabase(CheckoutSagaTest.paymentServer())
            .kafka(TestInfrastructure.kafka())
            .carrier(ShippingService.Carrier.flaky(0.3))
            .stepTimeout(Duration.ofSeconds(5))
            .orchestratorInProcess(false)
            .start()) {
      CheckoutDemoSettings mix =
          new CheckoutDemoSettings(
              CHECKOUTS, 1, 0.1, 0.1, 0, null, null, null, false, Duration.ofMinutes(1), 11);
      for (int p = 1; p <= 8; p++) {
        system.inventory().addProduct("sku-" + p, 1000);
      }
      system.inventory().addProduct(CheckoutDemo.SOLD_OUT, 0);

      try (JvmProcess first = OrchestratorProcess.start(system, "first", "PT5S")) {
        for (CheckoutDemo.Planned planned : CheckoutDemo.plan(mix)) {
          system.checkout(planned.checkout());
        }
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> system.statusCounts().get(SagaStatus.COMPLETED) >= 10);
        first.kill();
        Map<SagaStatus, Long> atKill = system.statusCounts();
        long endedAtKill = atKill.get(SagaStatus.COMPLETED) + atKill.get(SagaStatus.COMPENSATED);
        System.out.println("orchestrator killed with sagas at " + atKill);
        assertThat(endedAtKill).as("killed in the middle of the run").isLessThan(CHECKOUTS);

        try (JvmProcess replacement = OrchestratorProcess.start(system, "replacement", "PT5S")) {
          await()
              .atMost(Duration.ofSeconds(120))
              .until(
                  () -> {
                    Map<SagaStatus, Long> c = system.statusCounts();
                    return c.get(SagaStatus.COMPLETED) + c.get(SagaStatus.COMPENSATED) == CHECKOUTS;
                  });
          assertThat(replacement.isAlive()).isTrue();
        }
      }

      CheckoutInvariants invariants = system.invariants();
      assertThat(invariants.violations()).isEmpty();
      long plannedDeclined =
          CheckoutDemo.plan(mix).stream().filter(CheckoutDemo.Planned::declined).count();
      long plannedOutOfStock =
          CheckoutDemo.plan(mix).stream().filter(CheckoutDemo.Planned::outOfStock).count();
      assertThat(invariants.declined()).isEqualTo(plannedDeclined);
      assertThat(invariants.outOfStock()).isEqualTo(plannedOutOfStock);
      assertThat(invariants.completed()).isEqualTo(CHECKOUTS - plannedDeclined - plannedOutOfStock);
    }
  }
}
