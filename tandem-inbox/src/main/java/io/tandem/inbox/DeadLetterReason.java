package io.tandem.inbox;

/** Why a message went to the dead-letter table. */
public enum DeadLetterReason {
  /** Not a valid Tandem CloudEvent (missing attributes, a payload that is not JSON, ...). */
  INVALID_MESSAGE,
  /** The handler threw a {@link PermanentHandlerException}: retrying cannot help. */
  HANDLER_REFUSED,
  /** The handler kept failing until the retry policy's attempts ran out. */
  RETRIES_EXHAUSTED,
  /** No handler for the event type, under {@link UnsupportedEventPolicy#DEAD_LETTER}. */
  UNKNOWN_EVENT_TYPE,
  /**
   * A schema version newer than the handler's, under {@link UnsupportedEventPolicy#DEAD_LETTER}.
   */
  UNSUPPORTED_SCHEMA_VERSION,
  /**
   * With the ordering guard: an event id the consumer never applied, whose version is at or below
   * its aggregate's position — another event already took that version (two producers writing one
   * aggregate, a reset version sequence). Dropping it as a duplicate would lose it silently.
   */
  VERSION_CONFLICT
}
