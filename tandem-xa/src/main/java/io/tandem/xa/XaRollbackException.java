package io.tandem.xa;

import java.util.List;

/**
 * The transaction rolled back: a branch voted no or failed before the decision, or recovery had
 * already presumed it aborted. Nothing of it was committed anywhere; running it again is safe. The
 * cause is the participant's error, when there was one.
 */
public class XaRollbackException extends XaTransactionException {
  private static final long serialVersionUID = 1L;

  public XaRollbackException(
      String message, GlobalTransactionId transaction, List<String> branches, Throwable cause) {
    super(message, transaction, XaOutcome.ROLLED_BACK, branches, cause);
  }
}
