package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The soak's short form: one minute, a kill every 8 s, the broker restarted after 30 s. Both flows
 * must end with nothing lost or doubled. Slow (about two minutes).
 */
@Tag("slow")
class SoakTest {

  @Test
  void bothFlowsSurviveRandomKillsAndABrokerRestart() throws Exception {
    Path logs = Files.createTempDirectory("tandem-soak-test-");
    DrillSettings drill =
        DrillSettings.defaults(logs).withServers(TestInfrastructure.postgres().jdbcUrl(), null);
    DrillReport report =
        Soak.run(
            new Soak.Settings(
                Duration.ofSeconds(60),
                Duration.ofSeconds(8),
                Duration.ofSeconds(30),
                10,
                1,
                7,
                drill),
            System.out);
    report.printTable(System.out);

    assertThat(report.drills()).hasSize(2);
    for (DrillResult d : report.drills()) {
      assertThat(d.result()).as(d.name() + ": " + d.detail()).isEqualTo(DrillResult.Verdict.PASS);
      assertThat(d.committed()).as(d.name()).isPositive();
      assertThat(d.lost()).as(d.name()).isZero();
      assertThat(d.duplicateSideEffects()).as(d.name()).isZero();
    }
    assertThat(report.drills().get(0).detail())
        .anyMatch(
            l ->
                l.matches(
                    ".*killed with SIGKILL \\([1-9][0-9]* relays, [1-9][0-9]* consumers,"
                        + " [1-9][0-9]* orchestrators.*restarted [1-9].*"));
  }
}
