package io.tandem.examples.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.examples.Check;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class CheckoutDemoTest {

  @Test
  void theDemoEndsEverySagaAsPlannedAndItsInvariantsHold() throws Exception {
    CheckoutDemoSettings settings =
        new CheckoutDemoSettings(
            100,
            32,
            0.1,
            0.1,
            0.2,
            TestInfrastructure.postgres().jdbcUrl(),
            TestInfrastructure.kafka().bootstrapServers(),
            null,
            true,
            Duration.ofMinutes(2),
            7);
    CheckoutReport report = new CheckoutDemo(settings, System.out, false).run();

    assertThat(report.violations()).isEmpty();
    assertThat(report.invariantsOk()).isTrue();
    assertThat(report.checks()).hasSize(8).allMatch(Check::held);
    assertThat(report.toTable())
        .contains("  ok      money conserved: charges ", "result: OK, every check held");
    assertThat(report.timings().startupMillis())
        .isGreaterThanOrEqualTo(report.timings().serversMillis());
    assertThat(report.timings().runMillis()).isPositive();
    int all = 100 + CheckoutDemo.WARM_UP;
    assertThat(report.warmUpCheckouts()).isEqualTo(CheckoutDemo.WARM_UP);
    assertThat(report.sagas()).isEqualTo(all);
    assertThat(report.completed() + report.compensated()).isEqualTo(all);
    assertThat(report.stuck()).isZero();
    assertThat(report.running()).isZero();
    assertThat(report.declined()).isEqualTo(report.plannedDeclined()).isPositive();
    assertThat(report.outOfStock()).isEqualTo(report.plannedOutOfStock()).isPositive();
    assertThat(report.shippingRetries()).isPositive();
    assertThat(report.netChargedCents()).isEqualTo(report.confirmedCents()).isPositive();
    assertThat(report.p99Millis()).isGreaterThanOrEqualTo(report.p50Millis()).isPositive();
    assertThat(report.toJson())
        .contains(
            "\"mode\":\"orchestration\"",
            "\"sagas\":" + all,
            "\"invariants_ok\":true",
            "\"stuck\":0",
            "\"sagas_per_s\":",
            "\"p50_ms\":",
            "\"p99_ms\":");
  }

  @Test
  void theMixFollowsTheSeed() {
    CheckoutDemoSettings settings =
        new CheckoutDemoSettings(
            1000, 10, 0.2, 0.1, 0, null, null, null, false, Duration.ofMinutes(1), 3);
    List<CheckoutDemo.Planned> plan = CheckoutDemo.plan(settings);

    assertThat(plan).isEqualTo(CheckoutDemo.plan(settings));
    assertThat(plan.stream().filter(CheckoutDemo.Planned::declined).count()).isBetween(150L, 250L);
    assertThat(plan.stream().filter(CheckoutDemo.Planned::outOfStock).count()).isBetween(60L, 140L);
    assertThat(plan)
        .allSatisfy(
            p -> {
              assertThat(p.checkout().card().endsWith(PaymentService.DECLINED_CARD_SUFFIX))
                  .isEqualTo(p.declined());
              assertThat(p.checkout().sku().equals(CheckoutDemo.SOLD_OUT))
                  .isEqualTo(p.outOfStock());
            });
  }

  @Test
  void aReportWithAViolationIsNotOk() {
    CheckoutReport report =
        new CheckoutReport(
            10,
            9,
            0,
            0,
            1,
            0,
            0,
            0,
            0,
            0,
            100,
            100,
            List.of(
                new Check("every saga ended: 9 completed, 0 compensated", false),
                new Check("money conserved", true)),
            List.of("1 sagas still running"),
            1,
            2,
            3,
            100,
            new CheckoutReport.Timings(10, 20, 70),
            0,
            "postgresql",
            "orchestration",
            0);
    assertThat(report.invariantsOk()).isFalse();
    assertThat(report.toTable())
        .contains(
            "  FAILED  every saga ended: 9 completed, 0 compensated",
            "  ok      money conserved",
            "violated: 1 sagas still running",
            "result: FAILED");
    assertThat(report.toJson())
        .contains(
            "\"invariants_ok\":false",
            "\"checks\":[{\"check\":\"every saga ended: 9 completed, 0 compensated\",\"held\":false}",
            "\"violations\":[",
            "\"startup_ms\":20",
            "\"run_ms\":70");
  }

  @Test
  void badSettingsAreRefused() {
    assertThatThrownBy(
            () ->
                new CheckoutDemoSettings(
                    0, 10, 0, 0, 0, null, null, null, true, Duration.ofMinutes(1), 1))
        .hasMessage("checkouts must be between 1 and 1000000, was 0");
    assertThatThrownBy(
            () ->
                new CheckoutDemoSettings(
                    10, 10, 0.7, 0.5, 0, null, null, null, true, Duration.ofMinutes(1), 1))
        .hasMessageContaining("decline rate + out-of-stock rate must be at most 1");
    assertThatThrownBy(
            () ->
                new CheckoutDemoSettings(
                    10, 10, 0, 0, 1.5, null, null, null, true, Duration.ofMinutes(1), 1))
        .hasMessage("shipping failure rate must be between 0 and 1, was 1.5");
    assertThatThrownBy(
            () ->
                new CheckoutDemoSettings(
                    10, 10, 0, 0, 0, null, null, null, true, Duration.ofMinutes(1), 1, -1))
        .hasMessage("orchestrator kills must be between 0 and 20, was -1");
    assertThatThrownBy(
            () ->
                new CheckoutDemoSettings(
                    3, 10, 0, 0, 0, null, null, null, true, Duration.ofMinutes(1), 1, 3))
        .hasMessageContaining("must be fewer than the checkouts (3)");
    CheckoutDemoSettings killing =
        new CheckoutDemoSettings(
            10, 10, 0, 0, 0, null, null, null, true, Duration.ofMinutes(1), 1, 1);
    assertThatThrownBy(() -> new ChoreographyDemo(killing, null))
        .hasMessageContaining("a choreography has no orchestrator to kill");
  }

  @Tag("slow")
  @Test
  void theOrchestratorKilledTwiceMidRunLeavesEverySagaEndedAsPlanned() throws Exception {
    CheckoutDemoSettings settings =
        new CheckoutDemoSettings(
            150,
            32,
            0.1,
            0.1,
            0.2,
            TestInfrastructure.postgres().jdbcUrl(),
            TestInfrastructure.kafka().bootstrapServers(),
            null,
            true,
            Duration.ofMinutes(3),
            9,
            2);
    CheckoutReport report = new CheckoutDemo(settings, System.out, false).run();

    assertThat(report.orchestratorKills()).isEqualTo(2);
    assertThat(report.violations()).isEmpty();
    assertThat(report.invariantsOk()).isTrue();
    assertThat(report.completed() + report.compensated()).isEqualTo(150 + CheckoutDemo.WARM_UP);
    assertThat(report.declined()).isEqualTo(report.plannedDeclined());
    assertThat(report.outOfStock()).isEqualTo(report.plannedOutOfStock());
    assertThat(report.netChargedCents()).isEqualTo(report.confirmedCents()).isPositive();
    assertThat(report.toJson()).contains("\"orchestrator_kills\":2", "\"invariants_ok\":true");
  }
}
