package io.tandem.core.spi;

import io.tandem.core.Event;
import java.util.Map;

/**
 * One message a {@link MessageSource} received from a broker and has not settled yet.
 *
 * <p>The consumer runner calls {@link #decode()} once, applies the event in a local transaction (or
 * records why it could not: a dead letter, a parked event), and only after that transaction
 * committed calls {@link #acknowledge()}. A message that is never acknowledged (the process died,
 * the runner was closed before reaching it, the source lost its partition) must be delivered again
 * by the broker: acknowledging is the only way a message leaves the broker's unsettled set.
 *
 * <p>Implementations are created by a source on its own thread and then handed to one runner
 * worker; {@link #acknowledge()} may therefore be called from a thread other than the source's.
 */
public interface InboundMessage {

  /**
   * The broker's key for the message (Kafka record key, RabbitMQ/NATS/Redis partition key header),
   * or {@code null}. Used only to keep an undecodable message on a stable worker; a decodable one
   * is ordered by its event's aggregate.
   */
  String key();

  /**
   * Where the message came from, for logs and dead letters, e.g. {@code kafka tandem.order[3]@17}.
   */
  String origin();

  /** The broker-level headers or properties as text, for dead letters. Never null. */
  Map<String, String> rawHeaders();

  /** The body exactly as received. Never null. */
  byte[] rawBody();

  /**
   * The Tandem event the message carries.
   *
   * @throws RuntimeException (the transport's invalid-message exception) when the message is not a
   *     valid Tandem CloudEvent; the message names what was wrong
   */
  Event decode();

  /**
   * Settles the message: the broker will not deliver it again (Kafka: its offset may be committed
   * once all earlier offsets of its partition are settled; RabbitMQ: basic.ack; NATS: ack; Redis:
   * XACK). Called at most once, after the local transaction that dealt with it committed. Must not
   * throw for a connection that is gone: the broker redelivers, and the inbox makes that harmless.
   */
  void acknowledge();
}
