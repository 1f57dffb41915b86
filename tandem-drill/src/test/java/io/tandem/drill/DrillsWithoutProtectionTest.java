package io.tandem.drill;

import static io.tandem.drill.AllDrillsTest.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every drill once more with its protection switched off: each must report FAIL, and for the reason
 * its protection exists — the checker sees what it guards against.
 */
@Tag("slow")
class DrillsWithoutProtectionTest {
  private static DrillReport report;

  @BeforeAll
  static void runAllDrillsWithoutProtection() throws Exception {
    Path logs = Files.createTempDirectory("tandem-drill-unprotected-");
    DrillSettings settings =
        DrillSettings.defaults(logs)
            .withEvents(200)
            .withOutage(Duration.ofSeconds(15))
            .withProtection(false)
            .withServers(TestInfrastructure.postgres().jdbcUrl(), null);
    report = DrillRunner.run(List.of("all"), settings, System.out);
    report.printTable(System.out);
  }

  private static DrillResult failed(String name) {
    DrillResult d = result(report, name);
    assertThat(d.result()).as(name + ": " + d.detail()).isEqualTo(DrillResult.Verdict.FAIL);
    return d;
  }

  @Test
  void serviceCrashWithoutOutboxLosesTheEventOfTheLastCommit() {
    assertThat(failed("service-crash-after-commit").lost()).isPositive();
  }

  @Test
  void relayCrashWithoutInboxDoublesSideEffects() {
    assertThat(failed("relay-crash-after-ack").duplicateSideEffects()).isPositive();
  }

  @Test
  void brokerOutageWithDirectPublishingLosesEvents() {
    assertThat(failed("broker-outage").lost()).isPositive();
  }

  @Test
  void duplicateDeliveryWithoutInboxDoublesSideEffects() {
    assertThat(failed("duplicate-delivery").duplicateSideEffects()).isPositive();
  }

  @Test
  void outOfOrderWithoutOrderingGuardAppliesVersionsOutOfOrder() {
    assertThat(failed("out-of-order").orderViolations()).isPositive();
  }

  @Test
  void consumerCrashWithoutInboxDoublesSideEffects() {
    assertThat(failed("consumer-crash-after-commit").duplicateSideEffects()).isPositive();
  }

  @Test
  void poisonDroppedInsteadOfQuarantinedIsLost() {
    assertThat(failed("quarantine-replay").lost()).isPositive();
  }

  @Test
  void orchestratorCrashWithoutResumptionLeavesSagasUnfinished() {
    assertThat(failed("orchestrator-crash").lost()).isPositive();
  }

  @Test
  void coordinatorCrashWithoutRecoveryLeavesBranchesInDoubt() {
    DrillResult d = failed("coordinator-crash");
    assertThat(d.lost()).isPositive();
    assertThat(d.detail()).anyMatch(l -> l.contains("left in doubt"));
  }

  @Test
  void databaseRestartWithAsynchronousCommitLosesAcknowledgedCommits() {
    assertThat(failed("database-restart").lost()).isPositive();
  }

  @Test
  void databaseFailoverToAnAsynchronousStandbyLosesAcknowledgedCommits() {
    assertThat(failed("database-failover").lost()).isPositive();
  }

  @Test
  void brokerFailoverHasNoUnprotectedFormBecauseAcksAllCannotBeSwitchedOff() {
    DrillResult d = result(report, "broker-failover");
    assertThat(d.result()).isEqualTo(DrillResult.Verdict.NOT_AVAILABLE);
    assertThat(d.detail()).anyMatch(l -> l.contains("acks=all"));
  }

  @Test
  void cdcStoppedHasNoUnprotectedFormAndIsNeverCountedAsPassed() {
    assertThat(result(report, "cdc-stopped").result()).isEqualTo(DrillResult.Verdict.NOT_AVAILABLE);
    assertThat(report.passed()).isZero();
  }
}
