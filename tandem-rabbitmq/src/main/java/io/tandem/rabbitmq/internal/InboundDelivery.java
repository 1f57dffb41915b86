package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.rabbitmq.RabbitCloudEventsCodec;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One delivery of a {@link ConsumerSession}: acknowledged with {@code basic.ack} on the channel
 * that received it, never on a later one.
 */
public final class InboundDelivery implements InboundMessage, ConsumerSession.Handoff {
  private static final String PARTITION_KEY = RabbitCloudEventsCodec.HEADER_PREFIX + "partitionkey";

  private final ConsumerSession session;
  private final String queue;
  private final Envelope envelope;
  private final AMQP.BasicProperties properties;
  private final byte[] body;
  private final RabbitCloudEventsCodec codec;
  private final AtomicBoolean acknowledged = new AtomicBoolean();

  InboundDelivery(
      ConsumerSession session,
      String queue,
      Envelope envelope,
      AMQP.BasicProperties properties,
      byte[] body,
      RabbitCloudEventsCodec codec) {
    this.session = session;
    this.queue = queue;
    this.envelope = envelope;
    this.properties = properties;
    this.body = body == null ? new byte[0] : body;
    this.codec = codec;
  }

  ConsumerSession session() {
    return session;
  }

  /** The {@code cloudEvents_partitionkey} header, else the routing key (Tandem's aggregate id). */
  @Override
  public String key() {
    Map<String, Object> headers = properties == null ? null : properties.getHeaders();
    Object key = headers == null ? null : headers.get(PARTITION_KEY);
    if (key != null) {
      return HeaderText.text(key);
    }
    String routingKey = envelope.getRoutingKey();
    return routingKey == null || routingKey.isEmpty() ? null : routingKey;
  }

  /** {@code rabbitmq <queue>#<delivery tag>}. */
  @Override
  public String origin() {
    return "rabbitmq " + queue + "#" + envelope.getDeliveryTag();
  }

  @Override
  public Map<String, String> rawHeaders() {
    return HeaderText.of(envelope, properties);
  }

  @Override
  public byte[] rawBody() {
    return body.clone();
  }

  @Override
  public Event decode() {
    return codec.decode(envelope, properties, body);
  }

  /** {@code basic.ack} for this delivery only; a second call, or a closed channel, does nothing. */
  @Override
  public void acknowledge() {
    if (acknowledged.compareAndSet(false, true)) {
      session.acknowledge(envelope.getDeliveryTag());
    }
  }

  @Override
  public String toString() {
    return origin();
  }
}
