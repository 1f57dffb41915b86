package io.tandem.core.spi;

import java.util.OptionalLong;

/**
 * Receives messages from one broker subscription (a Kafka consumer group, a RabbitMQ queue, a NATS
 * JetStream durable consumer, a Redis Streams consumer group) and hands them to a {@link
 * MessageSink}. One source is driven by one consumer runner.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@link #start(MessageSink)} connects and starts the source's own receiving thread(s); it
 *       returns once receiving has started, or throws if the broker refused the subscription.
 *   <li>Messages are handed over in broker order per key; the sink may block (back-pressure).
 *   <li>A message is settled at the broker only through {@link InboundMessage#acknowledge()}.
 *   <li>When the broker takes messages away from this source (a Kafka rebalance), the source waits
 *       a bounded time for the ones it handed over to be acknowledged before giving them up, and
 *       ignores acknowledgements that arrive after that.
 *   <li>{@link #close()} stops receiving, settles what was acknowledged (Kafka: commits offsets),
 *       and releases the connection; messages handed over and not acknowledged are redelivered by
 *       the broker later. Idempotent.
 * </ul>
 */
public interface MessageSource extends AutoCloseable {

  /**
   * A short name for logs and metrics: {@code kafka}, {@code rabbitmq}, {@code nats}, {@code
   * redis}.
   */
  String transport();

  /** A description of the subscription for logs, e.g. {@code group billing on tandem.order}. */
  String describe();

  /** Connects and starts handing messages to {@code sink}. Called once. */
  void start(MessageSink sink);

  /** Whether the receiving thread is alive: started and neither closed nor failed for good. */
  boolean isRunning();

  /**
   * How many messages of this source are not processed yet: those the broker has not delivered plus
   * those delivered and not acknowledged (Kafka: records-lag from the fetch responses plus records
   * fetched and not acknowledged; RabbitMQ, NATS, Redis: read from the broker every few seconds on
   * a thread of the source's own, see {@link io.tandem.core.LagProbe}). Empty when the source
   * cannot tell, or has not been told yet. The consumer runner exports it as the gauge {@code
   * tandem.consumer.lag}. Any thread; must not block (a Prometheus scrape calls it).
   */
  default OptionalLong lag() {
    return OptionalLong.empty();
  }

  @Override
  void close();
}
