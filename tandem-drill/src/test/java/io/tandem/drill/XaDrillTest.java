package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code coordinator-crash} alone, with and without its protection (recovery). */
@Tag("slow")
class XaDrillTest {

  @Test
  void coordinatorCrashPassesWithRecoveryAndFailsWithout() throws Exception {
    Path logs = Files.createTempDirectory("tandem-xa-drill-");
    DrillSettings settings =
        DrillSettings.defaults(logs).withServers(TestInfrastructure.postgres().jdbcUrl(), null);

    DrillResult on = run(settings);
    assertThat(on.result()).as(String.join("\n", on.detail())).isEqualTo(DrillResult.Verdict.PASS);
    assertThat(on.committed()).isPositive();
    assertThat(on.delivered()).isEqualTo(on.committed());
    assertThat(on.lost()).isZero();
    assertThat(on.duplicateSideEffects()).as("transfers on one side only").isZero();
    assertThat(on.detail())
        .anyMatch(l -> l.contains("xa.after-prepare: the transfer in flight is rolled back"))
        .anyMatch(l -> l.contains("xa.after-decision: the transfer in flight is committed"))
        .anyMatch(l -> l.contains("xa.mid-phase-two: the transfer in flight is committed"));

    DrillResult off = run(settings.withProtection(false));
    assertThat(off.result()).isEqualTo(DrillResult.Verdict.FAIL);
    assertThat(off.lost()).isPositive();
  }

  private static DrillResult run(DrillSettings settings) {
    DrillReport r = DrillRunner.run(List.of("coordinator-crash"), settings, System.out);
    r.printTable(System.out);
    return r.drills().get(0);
  }
}
