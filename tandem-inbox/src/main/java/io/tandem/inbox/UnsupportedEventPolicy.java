package io.tandem.inbox;

/**
 * What an {@link InboxProcessor} does with an event no handler takes: an event type it has no
 * handler for, or a schema version newer than its handler supports.
 */
public enum UnsupportedEventPolicy {
  /**
   * Record the event as processed without any effect (ordering moves past it) and count it in
   * {@code tandem.consumer.skipped}.
   */
  SKIP,
  /** Send it to the dead-letter table, from where it can be replayed once a handler supports it. */
  DEAD_LETTER
}
