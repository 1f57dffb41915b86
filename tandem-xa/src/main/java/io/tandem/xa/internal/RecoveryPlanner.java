package io.tandem.xa.internal;

import io.tandem.xa.XaDecision;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * What recovery does with one prepared branch, and when it forgets a decision: pure functions, so
 * every case is tested without databases. {@code Recovery} applies them.
 */
public final class RecoveryPlanner {
  private RecoveryPlanner() {}

  /** What to do with a prepared branch. */
  public enum Action {
    /** Not Tandem's (another format id, or not Tandem's shape): never touched. */
    LEAVE_FOREIGN,
    /** Another coordinator node's: it recovers its own (or an operator resolves it). */
    LEAVE_OTHER_NODE,
    /** This process is still running the transaction. */
    LEAVE_IN_FLIGHT,
    /** Undecided and younger than the margin: its coordinator may be about to decide. */
    WAIT,
    /** A commit decision is logged: commit the branch. */
    COMMIT,
    /** A rollback record is logged: roll the branch back. */
    ROLLBACK,
    /**
     * Undecided and older than the margin: record the rollback first (so that a late commit
     * decision loses), then roll the branch back.
     */
    PRESUME_ABORT
  }

  /**
   * Plans one prepared branch.
   *
   * @param xid Tandem's reading of the branch's xid; empty for a foreign one
   * @param ownNode this coordinator's node id
   * @param inFlight whether this process is running the transaction now
   * @param logged the decision log's record for its global id, if any
   * @param age how long the branch has been prepared (PostgreSQL tells; for MariaDB, since its
   *     transaction began)
   * @param margin how long an undecided branch is left alone
   */
  public static Action plan(
      Optional<TandemXid> xid,
      String ownNode,
      boolean inFlight,
      Optional<XaDecision> logged,
      Duration age,
      Duration margin) {
    if (xid.isEmpty()) {
      return Action.LEAVE_FOREIGN;
    }
    if (!xid.get().global().nodeId().equals(ownNode)) {
      return Action.LEAVE_OTHER_NODE;
    }
    if (inFlight) {
      return Action.LEAVE_IN_FLIGHT;
    }
    if (logged.isPresent()) {
      return logged.get() == XaDecision.COMMIT ? Action.COMMIT : Action.ROLLBACK;
    }
    return age.compareTo(margin) >= 0 ? Action.PRESUME_ABORT : Action.WAIT;
  }

  /**
   * Whether a decision record may be deleted. The records were read before the participants were
   * listed: a branch of a commit decision was prepared before the decision was written, so one that
   * no reachable participant lists any more is finished. A rollback record is kept for {@code
   * rollbackRetention} so that a coordinator that stalled between prepare and decision still finds
   * it.
   *
   * @param participantsOfRecord the participants the record names
   * @param reachable the participants whose listing succeeded in this pass
   * @param anyBranchListed whether any participant still lists a branch of the transaction
   */
  public static boolean forget(
      XaDecision decision,
      Instant decidedAt,
      Set<String> participantsOfRecord,
      Set<String> reachable,
      boolean anyBranchListed,
      Instant now,
      Duration rollbackRetention) {
    if (anyBranchListed || !reachable.containsAll(participantsOfRecord)) {
      return false;
    }
    return decision == XaDecision.COMMIT || !decidedAt.plus(rollbackRetention).isAfter(now);
  }
}
