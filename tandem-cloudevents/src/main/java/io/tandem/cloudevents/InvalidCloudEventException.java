package io.tandem.cloudevents;

import io.tandem.core.TandemException;

/**
 * A CloudEvent, or the attribute values a transport read, that cannot become an {@link
 * io.tandem.core.Event}: names the attribute and says what was wrong with it. Transports wrap it
 * into their own exception, which adds where the message came from:
 *
 * <pre>{@code
 * try {
 *   return decoder.decode(cloudEvent);
 * } catch (InvalidCloudEventException e) {
 *   throw new InvalidMessageException(e.attribute(), e.reason(), topic, ..., e.getCause());
 * }
 * }</pre>
 */
public final class InvalidCloudEventException extends TandemException {
  private final String attribute;
  private final String reason;

  /**
   * @param attribute the CloudEvents attribute, e.g. {@code time}, or {@code extensions}
   * @param reason what was wrong, e.g. {@code is missing (header ce_time)}
   * @param cause the underlying failure, or null
   */
  public InvalidCloudEventException(String attribute, String reason, Throwable cause) {
    super("CloudEvents attribute '" + attribute + "' " + reason, cause);
    this.attribute = attribute;
    this.reason = reason;
  }

  /** The CloudEvents attribute that was missing or invalid, e.g. {@code id}. */
  public String attribute() {
    return attribute;
  }

  /** What was wrong with it, e.g. {@code 'x' is not a UUID (Tandem's event_id)}. */
  public String reason() {
    return reason;
  }
}
