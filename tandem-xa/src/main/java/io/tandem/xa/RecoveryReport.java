package io.tandem.xa;

import java.util.List;

/**
 * What one recovery pass did.
 *
 * @param committed branches committed because the log held a commit decision
 * @param rolledBack branches rolled back because the log held a rollback record
 * @param presumedAborted branches of undecided transactions older than the margin, rolled back
 *     after recovery recorded the rollback
 * @param waiting undecided branches younger than the margin, left for a later pass
 * @param inFlight branches of transactions this process is still running
 * @param otherNodes Tandem branches of other coordinator nodes, left alone
 * @param foreign prepared transactions that are not Tandem's, never touched
 * @param forgotten decision records deleted because every branch had finished
 * @param unreachable participants that could not be listed (their branches wait for a later pass)
 * @param heuristics branches decided by someone else, one line each
 * @param failures what went wrong, one line each (the branch stays for a later pass)
 */
public record RecoveryReport(
    int committed,
    int rolledBack,
    int presumedAborted,
    int waiting,
    int inFlight,
    int otherNodes,
    int foreign,
    int forgotten,
    List<String> unreachable,
    List<String> heuristics,
    List<String> failures) {

  public RecoveryReport {
    unreachable = List.copyOf(unreachable);
    heuristics = List.copyOf(heuristics);
    failures = List.copyOf(failures);
  }

  /** Whether this pass resolved or forgot anything, or found something wrong. */
  public boolean eventful() {
    return committed + rolledBack + presumedAborted + forgotten > 0
        || !heuristics.isEmpty()
        || !failures.isEmpty()
        || !unreachable.isEmpty();
  }

  @Override
  public String toString() {
    return "committed "
        + committed
        + ", rolled back "
        + rolledBack
        + ", presumed aborted "
        + presumedAborted
        + ", waiting "
        + waiting
        + ", in flight "
        + inFlight
        + ", other nodes' "
        + otherNodes
        + ", foreign "
        + foreign
        + ", forgotten "
        + forgotten
        + (unreachable.isEmpty() ? "" : ", unreachable " + unreachable)
        + (heuristics.isEmpty() ? "" : ", HEURISTIC " + heuristics)
        + (failures.isEmpty() ? "" : ", failures " + failures);
  }
}
