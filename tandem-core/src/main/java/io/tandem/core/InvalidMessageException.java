package io.tandem.core;

/**
 * A message read from a broker is not a valid binary-mode CloudEvent carrying Tandem's envelope: a
 * required attribute is missing or malformed, or the envelope it carries fails {@link Event}'s
 * validation (then the {@link InvalidEventException} is the {@linkplain #getCause() cause}). Every
 * transport throws this one type, so a consumer catches it once whichever broker it reads.
 *
 * <p>The message names the transport, where the message was, the CloudEvents attribute and what is
 * wrong with it:
 *
 * <pre>{@code
 * invalid Kafka message at topic tandem.order partition 2 offset 17: attribute 'id' is missing (header ce_id)
 * invalid NATS message on subject tandem.order.o-42 (stream ORDERS sequence 17): attribute 'data' ...
 * }</pre>
 *
 * <p>Immutable, so safe to share between threads.
 */
public final class InvalidMessageException extends TandemException {
  private static final long serialVersionUID = 1L;

  private final String transport;
  private final String location;
  private final String attribute;
  private final String reason;

  /**
   * @param transport the transport's display name, e.g. {@code Kafka}, {@code RabbitMQ}
   * @param location where the message was, completing "invalid Kafka message ...", e.g. {@code at
   *     topic tandem.order partition 2 offset 17}; null when decoded without one
   * @param attribute the CloudEvents attribute that is wrong, e.g. {@code id}
   * @param reason what is wrong with it, completing "attribute 'id' ...", e.g. {@code is missing
   *     (header ce_id)}
   * @param cause the underlying failure (an {@link InvalidEventException} when the envelope fails
   *     validation), or null
   */
  public InvalidMessageException(
      String transport, String location, String attribute, String reason, Throwable cause) {
    super(
        "invalid "
            + transport
            + " message"
            + (location == null ? "" : " " + location)
            + ": attribute '"
            + attribute
            + "' "
            + reason,
        cause);
    this.transport = transport;
    this.location = location;
    this.attribute = attribute;
    this.reason = reason;
  }

  /** The transport that read the message, e.g. {@code Kafka}. */
  public String transport() {
    return transport;
  }

  /**
   * Where the message was, e.g. {@code at topic tandem.order partition 2 offset 17}; null when it
   * was decoded without a broker's envelope.
   */
  public String location() {
    return location;
  }

  /** The CloudEvents attribute that was missing or invalid, e.g. {@code id} or {@code data}. */
  public String attribute() {
    return attribute;
  }

  /** What was wrong with the attribute, e.g. {@code is missing (header ce_id)}. */
  public String reason() {
    return reason;
  }
}
