package io.tandem.inbox;

/** What an {@link InboxProcessor} did with one delivered message. */
public enum Outcome {
  /** The handler ran and its effect committed with the inbox record (and the new position). */
  APPLIED,
  /** The event had been applied before (same event id, or a version at or below the position). */
  DUPLICATE,
  /** The event arrived before a predecessor; it is kept durably and applied when the gap fills. */
  PARKED,
  /** No handler takes the event (type or schema version); recorded as processed, no effect. */
  SKIPPED,
  /** The message went to the dead-letter table; it waits there for an operator. */
  DEAD_LETTERED,
  /** The processor was stopped before it could finish; the message was not acknowledged. */
  ABANDONED
}
