package io.tandem.xa.internal;

import io.tandem.xa.BranchState;
import io.tandem.xa.XaDecision;
import io.tandem.xa.XaOutcome;
import java.util.List;

/**
 * The coordinator's decisions as pure functions of what the branches answered: which path a
 * transaction takes, what is decided after the votes, and how it ended. No I/O; {@code
 * TwoPhaseCommit} applies them.
 */
public final class CommitProtocol {
  private CommitProtocol() {}

  /** How a transaction is committed. */
  public enum Path {
    /** No branch was opened. */
    NOTHING,
    /** At most one branch wrote: it commits in one phase, the read-only ones with it. */
    ONE_PHASE,
    /** Two or more branches wrote: prepare all, log the decision, commit all. */
    TWO_PHASE
  }

  /** What the decision log said to the coordinator's commit record. */
  public enum LogResult {
    /** The commit decision is durable. */
    WRITTEN,
    /** A rollback record was there first (recovery presumed the transaction aborted). */
    ROLLBACK_RECORDED,
    /** The database refused the write: it did not happen. */
    NOT_WRITTEN,
    /** The write failed without an answer: whether it became durable is unknown. */
    UNKNOWN
  }

  /** What the coordinator does after trying to log its decision. */
  public enum AfterLog {
    COMMIT_ALL,
    ROLLBACK_ALL,
    /** Leave every branch prepared: recovery reads the log later and follows it. */
    LEAVE_TO_RECOVERY
  }

  /**
   * The path for branches of which {@code mayHaveWritten} tells whether each may have written
   * (PostgreSQL says exactly; MariaDB branches always may have).
   */
  public static Path path(List<Boolean> mayHaveWritten) {
    if (mayHaveWritten.isEmpty()) {
      return Path.NOTHING;
    }
    long writers = mayHaveWritten.stream().filter(w -> w).count();
    return writers <= 1 ? Path.ONE_PHASE : Path.TWO_PHASE;
  }

  /** The decision after phase 1: commit only when every branch is prepared. */
  public static XaDecision afterPrepare(List<BranchState> branches) {
    if (branches.isEmpty()) {
      throw new IllegalArgumentException("no branches to decide about");
    }
    return branches.stream().allMatch(b -> b == BranchState.PREPARED)
        ? XaDecision.COMMIT
        : XaDecision.ROLLBACK;
  }

  /** What follows the attempt to log a commit decision. */
  public static AfterLog afterLog(LogResult result) {
    return switch (result) {
      case WRITTEN -> AfterLog.COMMIT_ALL;
      case ROLLBACK_RECORDED, NOT_WRITTEN -> AfterLog.ROLLBACK_ALL;
      case UNKNOWN -> AfterLog.LEAVE_TO_RECOVERY;
    };
  }

  /** Whether phase 2 should try again: some branch has not answered. */
  public static boolean retryPhaseTwo(List<BranchState> branches) {
    return branches.contains(BranchState.IN_DOUBT);
  }

  /** How a one-phase transaction ended, from its writer's last state (read-only ones aside). */
  public static XaOutcome onePhaseOutcome(BranchState writer) {
    return switch (writer) {
      case COMMITTED -> XaOutcome.COMMITTED;
      case ROLLED_BACK -> XaOutcome.ROLLED_BACK;
      case IN_DOUBT -> XaOutcome.UNKNOWN; // the commit may have happened before the answer was lost
      case HEURISTIC -> XaOutcome.HEURISTIC;
      case ACTIVE, PREPARED ->
          throw new IllegalArgumentException("a one-phase writer has not ended: " + writer);
    };
  }

  /**
   * How a two-phase transaction ended, from its decision, whether logging it failed with an unknown
   * result ({@code logUnknown}: the branches were left to recovery) and the branches' last states.
   */
  public static XaOutcome twoPhaseOutcome(
      XaDecision decision, boolean logUnknown, List<BranchState> branches) {
    if (branches.contains(BranchState.HEURISTIC)) {
      return XaOutcome.HEURISTIC;
    }
    if (logUnknown) {
      return XaOutcome.UNKNOWN;
    }
    if (branches.contains(BranchState.ACTIVE) || branches.contains(BranchState.PREPARED)) {
      throw new IllegalArgumentException("the transaction has not ended: " + branches);
    }
    boolean anyCommitted = branches.contains(BranchState.COMMITTED);
    boolean anyRolledBack = branches.contains(BranchState.ROLLED_BACK);
    if (decision == XaDecision.COMMIT) {
      if (anyRolledBack) {
        return XaOutcome.HEURISTIC; // decided commit, yet a branch rolled back
      }
      return branches.contains(BranchState.IN_DOUBT)
          ? XaOutcome.COMMITTED_PENDING
          : XaOutcome.COMMITTED;
    }
    // Rolled back: an unanswered branch is presumed aborted by recovery (no commit record exists).
    return anyCommitted ? XaOutcome.HEURISTIC : XaOutcome.ROLLED_BACK;
  }

  /** Whether the decision record may be deleted: a commit every branch acknowledged. */
  public static boolean forget(XaDecision decision, List<BranchState> branches) {
    return decision == XaDecision.COMMIT
        && branches.stream().allMatch(b -> b == BranchState.COMMITTED);
  }
}
