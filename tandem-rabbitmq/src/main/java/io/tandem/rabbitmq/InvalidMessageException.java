package io.tandem.rabbitmq;

import io.tandem.core.TandemException;

/**
 * A RabbitMQ message is not a binary-mode CloudEvent carrying Tandem's envelope: a required
 * attribute is missing or malformed, or the envelope it carries fails {@link
 * io.tandem.core.Event}'s validation (then the {@link io.tandem.core.InvalidEventException} is the
 * {@linkplain #getCause() cause}).
 *
 * <p>The message names the attribute (CloudEvents name, for example {@code id}, {@code sequence},
 * {@code data}) and where the message came from: {@code invalid message from exchange
 * 'tandem.order' routing key 'order-7' delivery tag 17: attribute 'id' is missing (header
 * cloudEvents_id)}.
 */
public final class InvalidMessageException extends TandemException {
  private static final long serialVersionUID = 1L;
  private final String attribute;
  private final String exchange;
  private final String routingKey;
  private final long deliveryTag;

  /**
   * @param attribute the CloudEvents attribute that is wrong
   * @param reason what is wrong with it, completing "attribute 'x' ..."
   * @param exchange the exchange the message was published to, or null if unknown
   * @param routingKey its routing key, or null if unknown
   * @param deliveryTag its delivery tag, or -1 if unknown
   */
  public InvalidMessageException(
      String attribute,
      String reason,
      String exchange,
      String routingKey,
      long deliveryTag,
      Throwable cause) {
    super(
        "invalid message"
            + (exchange == null
                ? ""
                : " from exchange '"
                    + exchange
                    + "' routing key '"
                    + routingKey
                    + "' delivery tag "
                    + deliveryTag)
            + ": attribute '"
            + attribute
            + "' "
            + reason,
        cause);
    this.attribute = attribute;
    this.exchange = exchange;
    this.routingKey = routingKey;
    this.deliveryTag = deliveryTag;
  }

  /** The CloudEvents attribute that was missing or invalid, e.g. {@code id} or {@code data}. */
  public String attribute() {
    return attribute;
  }

  /** The exchange the message was published to; null when decoded without an envelope. */
  public String exchange() {
    return exchange;
  }

  /** The message's routing key; null when decoded without an envelope. */
  public String routingKey() {
    return routingKey;
  }

  /** The message's delivery tag; -1 when decoded without an envelope. */
  public long deliveryTag() {
    return deliveryTag;
  }
}
