package io.tandem.examples.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.examples.Check;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboxDemoTest {

  @Test
  void theDemoDeliversEveryEventOnceInEffectDespiteAKilledRelay() throws Exception {
    // The shared test servers: the machine's PostgreSQL when TANDEM_JDBC_URL is set, else
    // embedded; the embedded Kafka broker unless TANDEM_KAFKA_BOOTSTRAP is set.
    DemoSettings settings =
        new DemoSettings(
            300,
            4,
            2,
            1,
            TestInfrastructure.postgres().jdbcUrl(),
            TestInfrastructure.kafka().bootstrapServers(),
            Duration.ofMinutes(2));
    DemoReport report = new OutboxDemo(settings, System.out).run();

    int total = 300 + OutboxDemo.CRASH_BATCH;
    assertThat(report.committed()).isEqualTo(total);
    assertThat(report.published()).isEqualTo(total);
    assertThat(report.delivered()).isEqualTo(total);
    assertThat(report.lost()).isZero();
    assertThat(report.duplicateSideEffects()).isZero();
    assertThat(report.relayCrashes()).isEqualTo(1);
    assertThat(report.duplicatesDelivered())
        .as("the killed relay's whole batch must be published and delivered a second time")
        .isGreaterThanOrEqualTo(OutboxDemo.CRASH_BATCH);
    assertThat(report.recoveryMillis()).isPositive();
    assertThat(report.checks()).hasSize(4).allMatch(Check::held);
    assertThat(report.ok()).isTrue();
    assertThat(report.toJson())
        .contains("\"lost\": 0", "\"duplicate_side_effects\": 0", "\"ok\": true");
    assertThat(report.toTable()).contains("  ok      no committed order was lost", "result: OK");
  }

  @Test
  void percentilesAreNearestRank() {
    List<Double> sorted = List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0);
    assertThat(OutboxDemo.percentile(sorted, 0.5)).isEqualTo(5.0);
    assertThat(OutboxDemo.percentile(sorted, 0.99)).isEqualTo(10.0);
    assertThat(OutboxDemo.percentile(List.of(), 0.99)).isZero();
  }

  @Test
  void aReportWithALostEventIsNotOk() {
    DemoReport.Timings t = new DemoReport.Timings(1, 2, 3);
    DemoReport fine = new DemoReport(10, 10, 10, 5, 0, 0, 1, 5, 100, 5, 1, 2, 100, t);
    DemoReport lost = new DemoReport(10, 10, 9, 5, 0, 1, 1, 5, 100, 5, 1, 2, 100, t);
    DemoReport doubled = new DemoReport(10, 10, 10, 5, 1, 0, 1, 5, 100, 5, 1, 2, 100, t);
    DemoReport crashWithoutDuplicates =
        new DemoReport(10, 10, 10, 0, 0, 0, 1, 5, 100, 5, 1, 2, 100, t);
    assertThat(fine.ok()).isTrue();
    assertThat(lost.ok()).isFalse();
    assertThat(doubled.ok()).isFalse();
    assertThat(crashWithoutDuplicates.ok())
        .as("a crash that produced no duplicate proved nothing")
        .isFalse();
    assertThat(lost.toTable()).contains("  FAILED  no committed order was lost", "result: FAILED");
  }

  @Test
  void badSettingsAreRefused() {
    assertThatThrownBy(() -> new DemoSettings(0, 4, 2, 1, null, null, Duration.ofMinutes(1)))
        .hasMessage("orders must be between 1 and 10000000, was 0");
    assertThatThrownBy(() -> new DemoSettings(10, 4, 2, 1, null, null, Duration.ZERO))
        .hasMessageContaining("timeout must be a positive duration");
  }
}
