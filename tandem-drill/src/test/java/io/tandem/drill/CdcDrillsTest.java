package io.tandem.drill;

import static io.tandem.drill.AllDrillsTest.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The drills with the CDC relay ({@code tandem drill --relay cdc}), in their short form (300
 * changes): {@code relay-crash-after-ack} (the CDC relay killed between the broker's ack and the
 * storing of its position, another one resumes) and {@code cdc-stopped} (the relay stopped while
 * the service writes, the slot's lag past the alert threshold, resumed). {@link AllDrillsTest}
 * leaves cdc-stopped to this test.
 */
@Tag("slow")
class CdcDrillsTest {

  @Test
  void theCdcRelaysDrillsPass() throws Exception {
    Path logs = Files.createTempDirectory("tandem-cdc-drill-");
    DrillSettings settings =
        DrillSettings.defaults(logs)
            .withServers(TestInfrastructure.postgres().jdbcUrl(), null)
            .withRelay(DrillSettings.CDC_RELAY);

    DrillReport report =
        DrillRunner.run(
            List.of("relay-crash-after-ack", "database-restart", "cdc-stopped"),
            settings,
            System.out);
    report.printTable(System.out);

    assertThat(report.drills()).hasSize(3);
    for (DrillResult d : report.drills()) {
      assertThat(d.result()).as(d.name() + ": " + d.detail()).isEqualTo(DrillResult.Verdict.PASS);
      // A commit cut by the database's crash may be retried as a new change: at least as many.
      assertThat(d.committed()).as(d.name()).isGreaterThanOrEqualTo(settings.events());
      assertThat(d.delivered()).as(d.name()).isEqualTo(d.committed());
      assertThat(d.lost()).as(d.name()).isZero();
      assertThat(d.duplicateSideEffects()).as(d.name()).isZero();
      assertThat(d.orderViolations()).as(d.name()).isZero();
    }
    assertThat(result(report, "relay-crash-after-ack").detail())
        .anyMatch(
            l -> l.startsWith("CDC relay killed after the broker's ack") && l.endsWith("yes"));
    assertThat(result(report, "cdc-stopped").detail())
        .anyMatch(l -> l.startsWith("while stopped: slot lag") && l.contains(": fired)"))
        .anyMatch(l -> l.contains("alert cleared"));
  }
}
