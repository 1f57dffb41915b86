package io.tandem.inbox;

/**
 * An event that goes to the dead-letter table without further attempts: a handler refused it, no
 * handler takes it (by policy), or another event took its version. Thrown inside the transaction so
 * that it rolls back.
 */
final class Refused extends RuntimeException {
  private static final long serialVersionUID = 1L;
  final DeadLetterReason reason;

  Refused(DeadLetterReason reason, String message, Throwable cause) {
    super(message, cause, false, false);
    this.reason = reason;
  }
}
