package io.tandem.inbox;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A message a consumer could not apply, as kept in {@code tandem_dead_letter}: the raw message
 * (origin, headers, body), why it failed and after how many attempts, and — when the message could
 * be decoded — the event's identity. Immutable.
 *
 * @param id the row id, used to replay or discard it
 * @param eventId null when the message could not be decoded, as are the other event fields
 * @param aggregateVersion 0 when the message could not be decoded
 * @param resolvedAt when it was replayed or discarded; null while {@link DeadLetterStatus#DEAD}
 */
public record DeadLetter(
    long id,
    String consumer,
    DeadLetterStatus status,
    DeadLetterReason reasonClass,
    String reason,
    int attempts,
    String origin,
    Map<String, String> rawHeaders,
    byte[] rawBody,
    UUID eventId,
    String aggregateType,
    String aggregateId,
    long aggregateVersion,
    String eventType,
    Instant deadAt,
    Instant resolvedAt) {

  public DeadLetter {
    rawHeaders = Map.copyOf(rawHeaders);
    rawBody = rawBody.clone();
  }

  /** The raw body as received (a copy). */
  @Override
  public byte[] rawBody() {
    return rawBody.clone();
  }

  /** The event's id, when the message could be decoded. */
  public Optional<UUID> decodedEventId() {
    return Optional.ofNullable(eventId);
  }
}
