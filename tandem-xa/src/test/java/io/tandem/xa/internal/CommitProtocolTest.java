package io.tandem.xa.internal;

import static io.tandem.xa.BranchState.COMMITTED;
import static io.tandem.xa.BranchState.HEURISTIC;
import static io.tandem.xa.BranchState.IN_DOUBT;
import static io.tandem.xa.BranchState.PREPARED;
import static io.tandem.xa.BranchState.ROLLED_BACK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.xa.BranchState;
import io.tandem.xa.XaDecision;
import io.tandem.xa.XaOutcome;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The coordinator's decisions, without I/O. */
class CommitProtocolTest {

  @Test
  void twoWritersTakeTwoPhasesAndOneWriterOne() {
    assertThat(CommitProtocol.path(List.of())).isEqualTo(CommitProtocol.Path.NOTHING);
    assertThat(CommitProtocol.path(List.of(true))).isEqualTo(CommitProtocol.Path.ONE_PHASE);
    assertThat(CommitProtocol.path(List.of(false, true))).isEqualTo(CommitProtocol.Path.ONE_PHASE);
    assertThat(CommitProtocol.path(List.of(false, false))).isEqualTo(CommitProtocol.Path.ONE_PHASE);
    assertThat(CommitProtocol.path(List.of(true, true))).isEqualTo(CommitProtocol.Path.TWO_PHASE);
    assertThat(CommitProtocol.path(List.of(true, false, true)))
        .isEqualTo(CommitProtocol.Path.TWO_PHASE);
  }

  @Property
  void commitIsDecidedOnlyWhenEveryBranchIsPrepared(
      @ForAll @Size(min = 1, max = 5) List<BranchState> votes) {
    XaDecision d = CommitProtocol.afterPrepare(votes);
    assertThat(d == XaDecision.COMMIT).isEqualTo(votes.stream().allMatch(v -> v == PREPARED));
  }

  @Test
  void onlyADurableDecisionLeadsToPhaseTwoCommits() {
    assertThat(CommitProtocol.afterLog(CommitProtocol.LogResult.WRITTEN))
        .isEqualTo(CommitProtocol.AfterLog.COMMIT_ALL);
    assertThat(CommitProtocol.afterLog(CommitProtocol.LogResult.ROLLBACK_RECORDED))
        .isEqualTo(CommitProtocol.AfterLog.ROLLBACK_ALL);
    assertThat(CommitProtocol.afterLog(CommitProtocol.LogResult.NOT_WRITTEN))
        .isEqualTo(CommitProtocol.AfterLog.ROLLBACK_ALL);
    assertThat(CommitProtocol.afterLog(CommitProtocol.LogResult.UNKNOWN))
        .as("an unanswered write may have become durable: only recovery may decide")
        .isEqualTo(CommitProtocol.AfterLog.LEAVE_TO_RECOVERY);
  }

  @Test
  void outcomesOfTwoPhaseTransactions() {
    assertThat(
            CommitProtocol.twoPhaseOutcome(XaDecision.COMMIT, false, List.of(COMMITTED, COMMITTED)))
        .isEqualTo(XaOutcome.COMMITTED);
    assertThat(
            CommitProtocol.twoPhaseOutcome(XaDecision.COMMIT, false, List.of(COMMITTED, IN_DOUBT)))
        .isEqualTo(XaOutcome.COMMITTED_PENDING);
    assertThat(
            CommitProtocol.twoPhaseOutcome(
                XaDecision.COMMIT, false, List.of(COMMITTED, ROLLED_BACK)))
        .isEqualTo(XaOutcome.HEURISTIC);
    assertThat(
            CommitProtocol.twoPhaseOutcome(
                XaDecision.ROLLBACK, false, List.of(ROLLED_BACK, IN_DOUBT)))
        .isEqualTo(XaOutcome.ROLLED_BACK);
    assertThat(CommitProtocol.twoPhaseOutcome(XaDecision.COMMIT, true, List.of(PREPARED, PREPARED)))
        .isEqualTo(XaOutcome.UNKNOWN);
    assertThat(
            CommitProtocol.twoPhaseOutcome(XaDecision.COMMIT, false, List.of(COMMITTED, HEURISTIC)))
        .isEqualTo(XaOutcome.HEURISTIC);
    assertThat(CommitProtocol.onePhaseOutcome(IN_DOUBT))
        .as("a one-phase commit without an answer may have committed")
        .isEqualTo(XaOutcome.UNKNOWN);
  }

  @Property
  void aRollbackDecisionNeverEndsCommitted(@ForAll @Size(min = 1, max = 5) List<BranchState> ends) {
    if (ends.contains(BranchState.ACTIVE) || ends.contains(PREPARED)) {
      return;
    }
    XaOutcome o = CommitProtocol.twoPhaseOutcome(XaDecision.ROLLBACK, false, ends);
    assertThat(o).isIn(XaOutcome.ROLLED_BACK, XaOutcome.HEURISTIC);
    if (ends.contains(COMMITTED)) {
      assertThat(o).isEqualTo(XaOutcome.HEURISTIC);
    }
  }

  @Property
  void theDecisionIsForgottenOnlyWhenEveryBranchCommitted(
      @ForAll XaDecision d, @ForAll @Size(min = 1, max = 5) List<BranchState> ends) {
    assertThat(CommitProtocol.forget(d, ends))
        .isEqualTo(d == XaDecision.COMMIT && ends.stream().allMatch(e -> e == COMMITTED));
  }
}
