package io.tandem.core;

/**
 * Root of every exception Tandem throws. Unchecked: callers branch on the subclasses that matter
 * ({@link InvalidEventException}, {@link PublishException}) and let the rest propagate.
 */
public class TandemException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TandemException(String message) {
    super(message);
  }

  public TandemException(String message, Throwable cause) {
    super(message, cause);
  }
}
