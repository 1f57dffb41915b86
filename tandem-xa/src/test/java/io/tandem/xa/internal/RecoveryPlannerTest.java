package io.tandem.xa.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.XaDecision;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** What recovery does with each kind of prepared branch, without databases. */
class RecoveryPlannerTest {
  private static final Duration MARGIN = Duration.ofSeconds(60);
  private static final Optional<TandemXid> MINE =
      Optional.of(new TandemXid(GlobalTransactionId.next("node-a"), "accounts"));
  private static final Optional<TandemXid> OTHERS =
      Optional.of(new TandemXid(GlobalTransactionId.next("node-b"), "accounts"));

  private static RecoveryPlanner.Action plan(
      Optional<TandemXid> xid, boolean inFlight, Optional<XaDecision> logged, long ageSeconds) {
    return RecoveryPlanner.plan(
        xid, "node-a", inFlight, logged, Duration.ofSeconds(ageSeconds), MARGIN);
  }

  @Test
  void recoveryFollowsTheLogAndPresumesAbortOnlyPastTheMargin() {
    assertThat(plan(MINE, false, Optional.of(XaDecision.COMMIT), 0))
        .isEqualTo(RecoveryPlanner.Action.COMMIT);
    assertThat(plan(MINE, false, Optional.of(XaDecision.ROLLBACK), 0))
        .isEqualTo(RecoveryPlanner.Action.ROLLBACK);
    assertThat(plan(MINE, false, Optional.empty(), 59)).isEqualTo(RecoveryPlanner.Action.WAIT);
    assertThat(plan(MINE, false, Optional.empty(), 60))
        .isEqualTo(RecoveryPlanner.Action.PRESUME_ABORT);
    assertThat(plan(MINE, true, Optional.of(XaDecision.COMMIT), 3600))
        .isEqualTo(RecoveryPlanner.Action.LEAVE_IN_FLIGHT);
  }

  @Property
  void aForeignOrOtherNodesBranchIsNeverTouched(
      @ForAll boolean inFlight, @ForAll Optional<XaDecision> logged, @ForAll long age) {
    long seconds = Math.abs(age % 100_000);
    assertThat(plan(Optional.empty(), inFlight, logged, seconds))
        .isEqualTo(RecoveryPlanner.Action.LEAVE_FOREIGN);
    assertThat(plan(OTHERS, inFlight, logged, seconds))
        .isEqualTo(RecoveryPlanner.Action.LEAVE_OTHER_NODE);
  }

  @Property
  void aBranchIsCommittedOnlyUnderACommitDecision(
      @ForAll boolean inFlight, @ForAll Optional<XaDecision> logged, @ForAll long age) {
    RecoveryPlanner.Action a = plan(MINE, inFlight, logged, Math.abs(age % 100_000));
    if (a == RecoveryPlanner.Action.COMMIT) {
      assertThat(logged).contains(XaDecision.COMMIT);
      assertThat(inFlight).isFalse();
    }
  }

  @Test
  void aDecisionIsForgottenWhenNoReachableParticipantListsItsBranches() {
    Instant now = Instant.parse("2026-12-01T12:00:00Z");
    Set<String> both = Set.of("accounts", "ledger");
    assertThat(
            RecoveryPlanner.forget(
                XaDecision.COMMIT, now, both, both, false, now, Duration.ofDays(1)))
        .isTrue();
    assertThat(
            RecoveryPlanner.forget(
                XaDecision.COMMIT, now, both, both, true, now, Duration.ofDays(1)))
        .as("a branch still prepared")
        .isFalse();
    assertThat(
            RecoveryPlanner.forget(
                XaDecision.COMMIT, now, both, Set.of("accounts"), false, now, Duration.ofDays(1)))
        .as("a participant could not be listed")
        .isFalse();
    assertThat(
            RecoveryPlanner.forget(
                XaDecision.ROLLBACK,
                now,
                both,
                both,
                false,
                now.plusSeconds(3600),
                Duration.ofDays(1)))
        .as("a rollback record is kept for a stalled coordinator")
        .isFalse();
    assertThat(
            RecoveryPlanner.forget(
                XaDecision.ROLLBACK,
                now,
                both,
                both,
                false,
                now.plus(Duration.ofDays(1)),
                Duration.ofDays(1)))
        .isTrue();
  }
}
