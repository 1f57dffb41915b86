package io.tandem.core;

/**
 * A broker refused or did not acknowledge one event. The {@link #errorClass()} decides whether the
 * relay retries ({@link ErrorClass#retriable()}) or quarantines the event.
 */
public class PublishException extends TandemException {
  private static final long serialVersionUID = 1L;
  private final ErrorClass errorClass;

  public PublishException(ErrorClass errorClass, String message, Throwable cause) {
    super(message, cause);
    if (errorClass == null) {
      throw new IllegalArgumentException("errorClass must not be null");
    }
    this.errorClass = errorClass;
  }

  public ErrorClass errorClass() {
    return errorClass;
  }

  public boolean retriable() {
    return errorClass.retriable();
  }
}
