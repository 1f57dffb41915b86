package io.tandem.examples.choreography;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.examples.choreography.ChoreographedCheckout.Redelivery;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A demo-sized run: many checkouts with every kind of failure, all in flight together, then every
 * message delivered a second time.
 */
@Tag("slow")
class ChoreographyRunTest {

  @Test
  void aMixedRunEndsAsItsDataSaysAndSurvivesRedelivery() {
    try (ChoreographedCheckout checkout =
        ChoreographedCheckout.builder()
            .postgres(TestInfrastructure.postgres())
            .kafka(TestInfrastructure.kafka())
            .progress(System.out)
            .build()) {
      checkout.start();
      List<PlacedOrder> orders = checkout.run(300, new FailureMix(10, 10, 20));

      assertThat(checkout.awaitAllFinished(Duration.ofMinutes(3))).isTrue();
      ChoreographyInvariants inv = checkout.invariants();
      assertThat(inv.holds()).as(inv.toTable()).isTrue();
      assertThat(inv.placed()).isEqualTo(300);
      assertThat(inv.declined()).isEqualTo(30);
      assertThat(inv.outOfStock()).isEqualTo(30);
      assertThat(inv.confirmed()).isEqualTo(240);
      PlacedOrder retried =
          orders.stream()
              .filter(o -> o.request().shippingFailures() == 2)
              .findFirst()
              .orElseThrow();
      assertThat(checkout.carrierAttempts(retried.orderId())).isEqualTo(3);

      Redelivery redelivery = checkout.redeliverAll(Duration.ofMinutes(2));
      assertThat(redelivery.applied()).isZero();
      assertThat(redelivery.duplicates()).isEqualTo(redelivery.delivered());
      ChoreographyInvariants after = checkout.invariants();
      assertThat(after.holds()).as(after.toTable()).isTrue();
      assertThat(after.netChargedCents()).isEqualTo(inv.netChargedCents());
      System.out.print(after.toTable());
    }
  }
}
