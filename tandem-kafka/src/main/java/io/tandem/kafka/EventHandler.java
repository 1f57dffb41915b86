package io.tandem.kafka;

import io.tandem.core.Event;

/**
 * Applies one event received by a {@link KafkaEventConsumer}, typically in one local database
 * transaction (inbox record + side effect).
 *
 * <p>Returning normally means the effect is committed: the consumer may then commit the record's
 * offset. Throwing (unchecked exceptions only) means nothing was committed: the consumer retries
 * the same record after a backoff and commits no offset past it. Delivery is at least once, so a
 * handler must tolerate a redelivered event (same {@link Event#eventId()}).
 *
 * <pre>{@code
 * EventHandler handler = event -> {
 *   try (Connection c = dataSource.getConnection()) {
 *     // record event.eventId() in the inbox and apply the change, in one transaction
 *   } catch (SQLException e) {
 *     throw new IllegalStateException("could not apply " + event, e);
 *   }
 * };
 * }</pre>
 *
 * <p>Called from the consumer's single poll thread, one record at a time.
 */
@FunctionalInterface
public interface EventHandler {
  /** Applies {@code event}; throws an unchecked exception if its effect was not committed. */
  void handle(Event event);
}
