package io.tandem.xa;

/** How a two-phase transaction ended, as far as the coordinator knows when it returns. */
public enum XaOutcome {
  /** Every branch committed. */
  COMMITTED,
  /** Every branch rolled back (or will be, by recovery's presumed abort: nothing was decided). */
  ROLLED_BACK,
  /**
   * Commit was decided and logged, but some branch did not answer phase 2 within {@link
   * XaSettings#phaseTwoTimeout()}: it stays prepared, and recovery commits it. The transaction is
   * committed; its changes on that participant appear when recovery (or the participant's return)
   * finishes it.
   */
  COMMITTED_PENDING,
  /** Whether the commit decision reached the decision log is not known: recovery decides. */
  UNKNOWN,
  /** Some branch was decided by someone else: the outcome may be mixed. */
  HEURISTIC
}
