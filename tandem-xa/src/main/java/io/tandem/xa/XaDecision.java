package io.tandem.xa;

/** A transaction's decision as the decision log records it. No record means roll back. */
public enum XaDecision {
  /** Every branch voted yes: commit them all (written before phase 2 begins). */
  COMMIT,
  /**
   * Roll back, recorded only where a record must win over a late commit decision: by recovery
   * presuming an undecided transaction aborted, and by an operator's {@code resolve --rollback}.
   */
  ROLLBACK
}
