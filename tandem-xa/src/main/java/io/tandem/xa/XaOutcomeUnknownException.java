package io.tandem.xa;

import java.util.List;

/**
 * Whether the transaction committed is not known yet. Writing its commit decision got no answer:
 * its branches stay prepared and recovery decides from the decision log — committed if the decision
 * became durable, rolled back otherwise. Or, with a single writer, its one-phase commit got no
 * answer: nothing is prepared, and only the participant's data tells. Do not simply run the
 * transaction again; look it up ({@code tandem xa status}) or make the work idempotent.
 */
public class XaOutcomeUnknownException extends XaTransactionException {
  private static final long serialVersionUID = 1L;

  public XaOutcomeUnknownException(
      String message, GlobalTransactionId transaction, List<String> branches, Throwable cause) {
    super(message, transaction, XaOutcome.UNKNOWN, branches, cause);
  }
}
