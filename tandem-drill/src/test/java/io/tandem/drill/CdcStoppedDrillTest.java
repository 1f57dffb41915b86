package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code cdc-stopped} alone in its short form (300 changes): the CDC relay stopped while the
 * service writes, the slot's lag past the alert threshold, resumed, nothing lost. {@link
 * AllDrillsTest} leaves it to this test.
 */
@Tag("slow")
class CdcStoppedDrillTest {

  @Test
  void cdcStoppedPassesAndItsLagAlertFiresAndClears() throws Exception {
    Path logs = Files.createTempDirectory("tandem-cdc-drill-");
    DrillSettings settings =
        DrillSettings.defaults(logs).withServers(TestInfrastructure.postgres().jdbcUrl(), null);

    DrillReport report = DrillRunner.run(List.of("cdc-stopped"), settings, System.out);
    report.printTable(System.out);
    DrillResult d = report.drills().get(0);

    assertThat(d.result()).as(String.join("\n", d.detail())).isEqualTo(DrillResult.Verdict.PASS);
    assertThat(d.committed()).isEqualTo(settings.events());
    assertThat(d.delivered()).isEqualTo(d.committed());
    assertThat(d.lost()).isZero();
    assertThat(d.duplicateSideEffects()).isZero();
    assertThat(d.orderViolations()).isZero();
    assertThat(d.detail())
        .anyMatch(l -> l.startsWith("while stopped: slot lag") && l.contains(": fired)"))
        .anyMatch(l -> l.contains("alert cleared"));
  }
}
