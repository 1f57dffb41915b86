package io.tandem.xa;

import java.util.List;

/**
 * A branch was decided by someone other than Tandem (an operator, the database) and possibly
 * against Tandem's decision: the transaction's outcome may be mixed. The decision log keeps the
 * record with a note until an operator clears it; {@code tandem xa status} shows it.
 */
public class XaHeuristicException extends XaTransactionException {
  private static final long serialVersionUID = 1L;

  public XaHeuristicException(
      String message, GlobalTransactionId transaction, List<String> branches, Throwable cause) {
    super(message, transaction, XaOutcome.HEURISTIC, branches, cause);
  }
}
