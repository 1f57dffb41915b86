package io.tandem.xa;

/**
 * What a participant answered (or failed to answer) about one branch; the inputs of {@link
 * BranchState#next(BranchEvent)}.
 */
public enum BranchEvent {
  /** The branch voted yes: prepared, durable, holding its locks. */
  PREPARED,
  /** The branch committed in one phase (it was the transaction's only writer) or in phase 2. */
  COMMITTED,
  /**
   * The branch rolled back: it voted no, failed before preparing, or was rolled back in phase 2.
   */
  ROLLED_BACK,
  /**
   * No answer (the connection broke, the database restarted): the branch may or may not have done
   * what it was asked. Phase 2 is retried; recovery finishes what the retries did not.
   */
  NO_ANSWER,
  /**
   * The participant reports an outcome it decided itself (an XA heuristic code), or no longer knows
   * a branch it had prepared before anyone of Tandem's finished it: someone else decided.
   */
  HEURISTIC
}
