package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every drill in its short form (300 changes, 30 saga runs, the broker down 30 s), against the test
 * PostgreSQL (the machine's when TANDEM_JDBC_URL is set) and an embedded Kafka broker of the
 * drills' own: each passes. cdc-stopped is left to {@link CdcStoppedDrillTest}, so that CI runs it
 * once. Slow (about three minutes): CI runs it, a plain {@code ./mvnw verify} leaves it out.
 */
@Tag("slow")
class AllDrillsTest {

  @Test
  void everyDrillPassesWithItsProtectionOn() throws Exception {
    Path logs = Files.createTempDirectory("tandem-drill-test-");
    DrillSettings settings =
        DrillSettings.defaults(logs).withServers(TestInfrastructure.postgres().jdbcUrl(), null);

    List<String> drills = new ArrayList<>(DrillRunner.catalog().keySet());
    drills.remove("cdc-stopped");
    DrillReport report = DrillRunner.run(drills, settings, System.out);
    report.printTable(System.out);

    assertThat(report.drills()).hasSize(12);
    for (DrillResult d : report.drills()) {
      assertThat(d.result()).as(d.name() + ": " + d.detail()).isEqualTo(DrillResult.Verdict.PASS);
      assertThat(d.committed()).as(d.name()).isPositive();
      assertThat(d.delivered()).as(d.name()).isEqualTo(d.committed());
      assertThat(d.lost()).as(d.name()).isZero();
      assertThat(d.duplicateSideEffects()).as(d.name()).isZero();
      assertThat(d.orderViolations()).as(d.name()).isZero();
      assertThat(d.recoveryMs()).as(d.name()).isNotNegative();
    }
    // The faults really produced what the protections absorbed.
    assertThat(result(report, "relay-crash-after-ack").duplicatesDelivered()).isPositive();
    assertThat(result(report, "duplicate-delivery").duplicatesDelivered()).isPositive();
    assertThat(result(report, "consumer-crash-after-commit").duplicatesDelivered()).isPositive();
    assertThat(report.passed()).isEqualTo(12);
    assertThat(report.failed()).isZero();
  }

  static DrillResult result(DrillReport report, String name) {
    return report.drills().stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
  }
}
