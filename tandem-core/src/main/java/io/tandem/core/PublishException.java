package io.tandem.core;

import java.util.UUID;

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

  /**
   * One event's failure, worded as every transport of Tandem words it: {@code "<transport>:
   * <errorClass>: event <eventId> to <where>: <why>"}, without {@code " to <where>"} when {@code
   * where} is null (the event had no destination yet), e.g. {@code kafka: TIMEOUT: event 0190... to
   * topic orders: no ack within PT5S}.
   *
   * @param transport the transport's {@code name()}
   * @param where the destination, with its kind ({@code "topic orders"}), or null
   */
  public static PublishException forEvent(
      String transport,
      ErrorClass errorClass,
      UUID eventId,
      String where,
      String why,
      Throwable cause) {
    String to = where == null ? "" : " to " + where;
    return new PublishException(
        errorClass, transport + ": " + errorClass + ": event " + eventId + to + ": " + why, cause);
  }

  public ErrorClass errorClass() {
    return errorClass;
  }

  public boolean retriable() {
    return errorClass.retriable();
  }
}
