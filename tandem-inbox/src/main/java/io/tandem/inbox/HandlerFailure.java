package io.tandem.inbox;

/**
 * What a handler threw (any exception or {@link Error}), carried out of the transaction: only this
 * uses up a message's attempts. A failure of anything else — the commit, the consumer's own
 * statements — says nothing about the message and is retried without giving up.
 */
final class HandlerFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  HandlerFailure(Throwable cause) {
    super(cause.toString(), cause, false, false);
  }
}
