package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The long runs' form of the outbox drills in small: the service commits 5 changes per transaction
 * (as a 5,000-event run does) and halts after a commit a third of the way; its successor carries
 * on, and every change arrives once, in order. Slow (a minute): CI runs it.
 */
@Tag("slow")
class BatchedCommitDrillTest {

  @Test
  void serviceCrashAfterABatchedCommitLosesNothing() throws Exception {
    Path logs = Files.createTempDirectory("tandem-drill-test-");
    DrillSettings settings =
        DrillSettings.builder(logs)
            .events(600)
            .changesPerCommit(5)
            .jdbcUrl(TestInfrastructure.postgres().jdbcUrl())
            .build();

    DrillReport report = DrillRunner.run(List.of("service-crash-after-commit"), settings, null);

    DrillResult r = report.drills().get(0);
    assertThat(r.result()).as(String.join("\n", r.detail())).isEqualTo(DrillResult.Verdict.PASS);
    assertThat(r.detail()).anyMatch(line -> line.contains("(5 changes per commit): yes"));
    assertThat(r.committed()).isEqualTo(600);
    assertThat(r.delivered()).isEqualTo(600);
    assertThat(r.lost()).isZero();
    assertThat(r.duplicateSideEffects()).isZero();
    assertThat(r.orderViolations()).isZero();
  }
}
