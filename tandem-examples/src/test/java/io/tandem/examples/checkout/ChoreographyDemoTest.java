package io.tandem.examples.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.examples.choreography.FailureMix;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class ChoreographyDemoTest {

  @Test
  void theRatesBecomeTheChoreographysPercentages() {
    CheckoutDemoSettings settings =
        new CheckoutDemoSettings(
            10, 10, 0.05, 0.1, 0.25, null, null, null, false, Duration.ofMinutes(1), 1);
    assertThat(ChoreographyDemo.mix(settings)).isEqualTo(new FailureMix(5, 10, 25));
    CheckoutDemoSettings tooMuch =
        new CheckoutDemoSettings(
            10, 10, 0.5, 0.4, 0.2, null, null, null, false, Duration.ofMinutes(1), 1);
    assertThatThrownBy(() -> ChoreographyDemo.mix(tooMuch))
        .hasMessageContaining("add up to at most 100");
  }

  @Test
  @Tag("slow")
  void theChoreographedDemoReportsLikeTheOrchestratedOne() {
    CheckoutDemoSettings settings =
        new CheckoutDemoSettings(
            60,
            60,
            0.1,
            0.1,
            0.2,
            TestInfrastructure.postgres().jdbcUrl(),
            TestInfrastructure.kafka().bootstrapServers(),
            null,
            true,
            Duration.ofMinutes(2),
            1);
    CheckoutReport report = new ChoreographyDemo(settings, System.out).run();

    assertThat(report.violations()).isEmpty();
    assertThat(report.invariantsOk()).isTrue();
    assertThat(report.sagas()).isEqualTo(60);
    assertThat(report.declined()).isEqualTo(report.plannedDeclined()).isEqualTo(6);
    assertThat(report.outOfStock()).isEqualTo(report.plannedOutOfStock()).isEqualTo(6);
    assertThat(report.completed()).isEqualTo(48);
    assertThat(report.netChargedCents()).isEqualTo(report.confirmedCents());
    assertThat(report.toJson()).contains("\"mode\":\"choreography\"", "\"invariants_ok\":true");
  }
}
