package io.tandem.core;

/**
 * Why a publish failed, as stored in the outbox's {@code error_class} column. Each class is either
 * retriable (the relay backs off and tries again) or permanent (the event is quarantined for an
 * operator).
 */
public enum ErrorClass {
  /** The broker did not acknowledge in time. */
  TIMEOUT(true),
  /** The broker or the partition leader could not be reached. */
  BROKER_UNAVAILABLE(true),
  /** Too few in-sync replicas to honour the durability setting. */
  NOT_ENOUGH_REPLICAS(true),
  /** The connection dropped while the send was in flight. */
  CONNECTION_LOST(true),
  /** Any other failure the client library marks as transient. */
  TRANSIENT(true),
  /** The message exceeds what the broker accepts. */
  RECORD_TOO_LARGE(false),
  /** The event could not be encoded for the transport. */
  SERIALIZATION(false),
  /** The credentials may not publish to the destination. */
  AUTHORIZATION(false),
  /** No destination exists for the event (unknown topic, unroutable message). */
  UNROUTABLE(false),
  /**
   * The outbox row does not hold a valid event (it breaks an {@link EventRule}: a row appended by
   * plain SQL before the database checked the rule, or one the database cannot check). The relay
   * quarantines it without publishing it; {@code last_error} says which rule.
   */
  INVALID_EVENT(false),
  /** A failure Tandem cannot classify; treated as permanent so that an operator looks at it. */
  UNKNOWN(false);

  private final boolean retriable;

  ErrorClass(boolean retriable) {
    this.retriable = retriable;
  }

  /** Whether a later attempt can succeed without anyone changing anything. */
  public boolean retriable() {
    return retriable;
  }
}
