package io.tandem.inbox;

import io.tandem.core.TandemException;

/**
 * Thrown by a handler to say that the event can never be applied as it is (a business rule refuses
 * it, its payload does not fit): the processor sends it to the dead-letter table at once instead of
 * retrying. Any other exception is retried under the retry policy.
 *
 * <pre>{@code
 * if (amount.signum() < 0) {
 *   throw new PermanentHandlerException("refund amount " + amount + " is negative");
 * }
 * }</pre>
 */
public class PermanentHandlerException extends TandemException {
  private static final long serialVersionUID = 1L;

  public PermanentHandlerException(String message) {
    super(message);
  }

  public PermanentHandlerException(String message, Throwable cause) {
    super(message, cause);
  }
}
