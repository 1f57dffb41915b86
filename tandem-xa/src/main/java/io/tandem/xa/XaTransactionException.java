package io.tandem.xa;

import io.tandem.core.TandemException;
import java.util.List;

/**
 * A two-phase transaction did not simply commit. Subclasses say how it ended: {@link
 * XaRollbackException}, {@link XaOutcomeUnknownException}, {@link XaHeuristicException}.
 */
public class XaTransactionException extends TandemException {
  private static final long serialVersionUID = 1L;

  private final GlobalTransactionId transaction;
  private final XaOutcome outcome;
  private final List<String> branches;

  protected XaTransactionException(
      String message,
      GlobalTransactionId transaction,
      XaOutcome outcome,
      List<String> branches,
      Throwable cause) {
    super(message + " (transaction " + transaction + "; branches: " + branches + ")", cause);
    this.transaction = transaction;
    this.outcome = outcome;
    this.branches = List.copyOf(branches);
  }

  /** The transaction's id, as {@code tandem xa status} shows it. */
  public GlobalTransactionId transaction() {
    return transaction;
  }

  /** How it ended, as far as the coordinator knows. */
  public XaOutcome outcome() {
    return outcome;
  }

  /** Each branch and its last state, e.g. {@code node/uuid:accounts COMMITTED}. */
  public List<String> branches() {
    return branches;
  }
}
