package io.tandem.nats;

import io.tandem.core.TandemException;

/**
 * A NATS message is not a valid binary-mode CloudEvent carrying Tandem's envelope: a required
 * attribute is missing or malformed, or the envelope it carries fails {@link
 * io.tandem.core.Event}'s validation (then the {@link io.tandem.core.InvalidEventException} is the
 * {@linkplain #getCause() cause}).
 *
 * <p>The message names the attribute (CloudEvents name, for example {@code id}, {@code sequence},
 * {@code data}) and where the message came from: {@code invalid NATS message on subject
 * tandem.order.order-42 (stream ORDERS sequence 17): attribute 'id' is missing (header ce-id)}.
 */
public final class InvalidNatsMessageException extends TandemException {
  private static final long serialVersionUID = 1L;
  private final String attribute;
  private final String subject;

  /**
   * @param attribute the CloudEvents attribute that is wrong
   * @param reason what is wrong with it, completing "attribute 'x' ..."
   * @param location where the message came from, e.g. {@code subject tandem.order.o-1}
   */
  public InvalidNatsMessageException(
      String attribute, String reason, String subject, String location, Throwable cause) {
    super("invalid NATS message " + location + ": attribute '" + attribute + "' " + reason, cause);
    this.attribute = attribute;
    this.subject = subject;
  }

  /** The CloudEvents attribute that was missing or invalid, e.g. {@code id} or {@code data}. */
  public String attribute() {
    return attribute;
  }

  /** The subject the message was published to; null when unknown. */
  public String subject() {
    return subject;
  }
}
