package io.tandem.kafka;

import io.tandem.core.InvalidMessageException;
import io.tandem.kafka.internal.LoggingInvalidMessageHandler;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decides what happens to a record that is not a valid Tandem CloudEvent (see {@link
 * CloudEventsKafkaCodec#decode}). When it returns normally the {@link KafkaEventConsumer} counts
 * the record as invalid and moves past it; when it throws, the record is retried like a failed
 * handler call (no offset is committed past it).
 *
 * <p>The default, {@link #LOG_AND_SKIP}, logs the record's topic, partition, offset and the reason
 * at ERROR and skips it.
 *
 * <pre>{@code
 * InvalidMessageHandler park = (record, error) -> deadLetters.save(record, error.getMessage());
 * }</pre>
 *
 * <p>Called from the consumer's single poll thread.
 */
@FunctionalInterface
public interface InvalidMessageHandler {
  /** Logs at ERROR (logger {@code io.tandem.kafka.InvalidMessageHandler}) and skips the record. */
  InvalidMessageHandler LOG_AND_SKIP = new LoggingInvalidMessageHandler();

  /** Deals with {@code record}, which failed to decode for the reason {@code error} gives. */
  void handle(ConsumerRecord<String, byte[]> record, InvalidMessageException error);
}
