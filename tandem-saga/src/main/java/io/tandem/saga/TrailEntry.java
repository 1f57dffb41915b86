package io.tandem.saga;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One event of a business transaction as {@link SagaTrail} found it: where it was written, whether
 * the relay published it, and which consumers recorded it in their inbox.
 *
 * @param eventId the event's id
 * @param service the name of the service whose outbox holds it (as given to {@link SagaTrail})
 * @param outboxId the outbox row id, which orders events of one service that occurred at the same
 *     instant
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param aggregateVersion the aggregate version the event produced
 * @param eventType the event type
 * @param occurredAt when the event occurred (the producer's clock)
 * @param publishedAt when the relay recorded the broker's acknowledgement; {@code null} while the
 *     event is not published yet (pending, waiting for a retry, quarantined or skipped)
 * @param consumedBy the inbox records of the event in every service of the trail, by time; empty
 *     when no consumer recorded it (yet)
 */
public record TrailEntry(
    UUID eventId,
    String service,
    long outboxId,
    String aggregateType,
    String aggregateId,
    long aggregateVersion,
    String eventType,
    Instant occurredAt,
    Instant publishedAt,
    List<Consumption> consumedBy) {

  public TrailEntry {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(occurredAt, "occurredAt");
    consumedBy = List.copyOf(consumedBy);
  }

  /** Whether the relay published the event. */
  public boolean published() {
    return publishedAt != null;
  }

  /** Whether the consumer named {@code consumer} (in any service) recorded the event. */
  public boolean consumedBy(String consumer) {
    return consumedBy.stream().anyMatch(c -> c.consumer().equals(consumer));
  }

  /**
   * An inbox record of the event: a consumer processed it (applied it, or skipped it because it has
   * no handler for its type — the inbox records both) and committed at {@code processedAt}.
   *
   * @param service the service whose database holds the inbox record
   * @param consumer the consumer name of the inbox record
   * @param processedAt when the consumer's transaction recorded it
   */
  public record Consumption(String service, String consumer, Instant processedAt) {}
}
