package io.tandem.rabbitmq;

import com.rabbitmq.client.AMQP;
import java.util.Objects;

/**
 * One event encoded for RabbitMQ by {@link RabbitCloudEventsCodec#encode}: where to publish it and
 * what to publish.
 *
 * <pre>{@code
 * RabbitMessage m = codec.encode("tandem.order", event);
 * channel.basicPublish(m.exchange(), m.routingKey(), true, m.properties(), m.body());
 * }</pre>
 *
 * <p>Immutable and thread-safe: {@link #body()} returns a copy, and the properties' header table is
 * unmodifiable.
 */
public final class RabbitMessage {
  private final String exchange;
  private final String routingKey;
  private final AMQP.BasicProperties properties;
  private final byte[] body;

  RabbitMessage(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body) {
    this.exchange = Objects.requireNonNull(exchange, "exchange");
    this.routingKey = Objects.requireNonNull(routingKey, "routingKey");
    this.properties = Objects.requireNonNull(properties, "properties");
    this.body = body.clone();
  }

  /** The exchange to publish to. */
  public String exchange() {
    return exchange;
  }

  /** The routing key: the event's aggregate id. */
  public String routingKey() {
    return routingKey;
  }

  /**
   * The message properties: {@code message_id}, {@code delivery_mode} 2 (persistent), {@code
   * content_type}, {@code timestamp} and the {@code cloudEvents_*} header table.
   */
  public AMQP.BasicProperties properties() {
    return properties;
  }

  /** The body, the payload's UTF-8 bytes (a copy). */
  public byte[] body() {
    return body.clone();
  }

  /** The body's length in bytes. */
  public int bodySize() {
    return body.length;
  }

  @Override
  public String toString() {
    return "RabbitMessage{exchange="
        + exchange
        + ", routingKey="
        + routingKey
        + ", messageId="
        + properties.getMessageId()
        + ", "
        + body.length
        + " bytes}";
  }
}
