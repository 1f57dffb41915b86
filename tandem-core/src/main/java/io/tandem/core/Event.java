package io.tandem.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tandem.core.internal.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.UUID;

/**
 * One domain event: the immutable envelope that the outbox stores and every transport carries.
 *
 * <p>Built and validated once; a built event is always valid. Invalid input is refused with an
 * {@link InvalidEventException} naming the field, before anything is written:
 *
 * <ul>
 *   <li>{@code aggregate_type}, {@code aggregate_id}, {@code event_type}: not blank, at most {@link
 *       EventLimits#maxNameLength()} characters, no control characters;
 *   <li>{@code aggregate_version}: at least 1, strictly increasing per aggregate (the outbox's
 *       unique key enforces it);
 *   <li>{@code schema_version}: at least 1;
 *   <li>{@code payload}: a JSON document of at most {@link EventLimits#maxPayloadBytes()} UTF-8
 *       bytes (1 MiB by default).
 * </ul>
 *
 * <p>The {@code event_id} is a UUIDv7 generated when the builder is created unless given; it never
 * changes afterwards, however often the event is published. {@code occurred_at} defaults to now,
 * truncated to microseconds (what databases store).
 *
 * <pre>{@code
 * Event event = Event.builder()
 *     .aggregate("Order", "order-42", 3)
 *     .eventType("OrderConfirmed")
 *     .payload("{\"orderId\":\"order-42\",\"total\":1250}")
 *     .headers(EventHeaders.builder().correlationId("checkout-42").build())
 *     .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class Event {
  private final UUID eventId;
  private final String aggregateType;
  private final String aggregateId;
  private final long aggregateVersion;
  private final String eventType;
  private final int schemaVersion;
  private final String payload;
  private final EventHeaders headers;
  private final Instant occurredAt;

  private Event(Builder b) {
    this.eventId = b.eventId;
    this.aggregateType = b.aggregateType;
    this.aggregateId = b.aggregateId;
    this.aggregateVersion = b.aggregateVersion;
    this.eventType = b.eventType;
    this.schemaVersion = b.schemaVersion;
    this.payload = b.payload;
    this.headers = b.headers;
    this.occurredAt = b.occurredAt;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this event's values, for example to derive a test variant. */
  public Builder toBuilder() {
    return new Builder()
        .eventId(eventId)
        .aggregate(aggregateType, aggregateId, aggregateVersion)
        .eventType(eventType)
        .schemaVersion(schemaVersion)
        .payload(payload)
        .headers(headers)
        .occurredAt(occurredAt);
  }

  public UUID eventId() {
    return eventId;
  }

  public String aggregateType() {
    return aggregateType;
  }

  public String aggregateId() {
    return aggregateId;
  }

  public long aggregateVersion() {
    return aggregateVersion;
  }

  public String eventType() {
    return eventType;
  }

  public int schemaVersion() {
    return schemaVersion;
  }

  /** The payload, a JSON document: the published contract, not a dump of internal columns. */
  public String payload() {
    return payload;
  }

  public EventHeaders headers() {
    return headers;
  }

  public Instant occurredAt() {
    return occurredAt;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Event e)) {
      return false;
    }
    return aggregateVersion == e.aggregateVersion
        && schemaVersion == e.schemaVersion
        && eventId.equals(e.eventId)
        && aggregateType.equals(e.aggregateType)
        && aggregateId.equals(e.aggregateId)
        && eventType.equals(e.eventType)
        && payload.equals(e.payload)
        && headers.equals(e.headers)
        && occurredAt.equals(e.occurredAt);
  }

  @Override
  public int hashCode() {
    return eventId.hashCode();
  }

  @Override
  public String toString() {
    return "Event{"
        + eventId
        + " "
        + aggregateType
        + "/"
        + aggregateId
        + " v"
        + aggregateVersion
        + " "
        + eventType
        + " s"
        + schemaVersion
        + "}";
  }

  /** Builds and validates an {@link Event}. Not thread-safe. */
  public static final class Builder {
    private UUID eventId = EventId.next();
    private String aggregateType;
    private String aggregateId;
    private long aggregateVersion;
    private String eventType;
    private int schemaVersion = 1;
    private String payload;
    private EventHeaders headers = EventHeaders.EMPTY;
    private Instant occurredAt;
    private EventLimits limits = EventLimits.DEFAULTS;

    private Builder() {}

    /** Sets the id; only for an event that already has one (read back, or re-sent). */
    public Builder eventId(UUID eventId) {
      this.eventId = eventId;
      return this;
    }

    /** The aggregate this event belongs to and its version after the change (from 1). */
    public Builder aggregate(String type, String id, long version) {
      this.aggregateType = type;
      this.aggregateId = id;
      this.aggregateVersion = version;
      return this;
    }

    public Builder eventType(String eventType) {
      this.eventType = eventType;
      return this;
    }

    /** The version of the payload's contract; default 1. */
    public Builder schemaVersion(int schemaVersion) {
      this.schemaVersion = schemaVersion;
      return this;
    }

    public Builder payload(String json) {
      this.payload = json;
      return this;
    }

    public Builder headers(EventHeaders headers) {
      this.headers = headers;
      return this;
    }

    public Builder occurredAt(Instant occurredAt) {
      this.occurredAt = occurredAt;
      return this;
    }

    /** The limits checked by {@link #build()}; default {@link EventLimits#DEFAULTS}. */
    public Builder limits(EventLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Validates and builds the event.
     *
     * @throws InvalidEventException naming the first field that is wrong
     */
    public Event build() {
      if (eventId == null) {
        throw new InvalidEventException("event_id", "must not be null");
      }
      name("aggregate_type", aggregateType);
      name("aggregate_id", aggregateId);
      name("event_type", eventType);
      if (aggregateVersion < 1) {
        throw new InvalidEventException(
            "aggregate_version",
            "must be at least 1, was "
                + aggregateVersion
                + " (the aggregate's version after this change)");
      }
      if (schemaVersion < 1) {
        throw new InvalidEventException(
            "schema_version", "must be at least 1, was " + schemaVersion);
      }
      validatePayload();
      if (headers == null) {
        throw new InvalidEventException("headers", "must not be null (use EventHeaders.EMPTY)");
      }
      int headerBytes = Json.write(headers.asMap()).getBytes(StandardCharsets.UTF_8).length;
      if (headerBytes > limits.maxHeadersBytes()) {
        throw new InvalidEventException(
            "headers",
            "are " + headerBytes + " bytes as JSON, over the limit of " + limits.maxHeadersBytes());
      }
      if (occurredAt == null) {
        occurredAt = Instant.now();
      }
      occurredAt = occurredAt.truncatedTo(ChronoUnit.MICROS);
      return new Event(this);
    }

    private void name(String field, String value) {
      if (value == null || value.isBlank()) {
        throw new InvalidEventException(field, "must not be blank");
      }
      if (value.length() > limits.maxNameLength()) {
        throw new InvalidEventException(
            field,
            "is " + value.length() + " characters, over the limit of " + limits.maxNameLength());
      }
      if (!value.strip().equals(value) || value.chars().anyMatch(Character::isISOControl)) {
        throw new InvalidEventException(
            field, "'" + value + "' has leading/trailing spaces or control characters");
      }
    }

    private void validatePayload() {
      if (payload == null || payload.isBlank()) {
        throw new InvalidEventException("payload", "must not be blank: give a JSON document");
      }
      int bytes = payload.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > limits.maxPayloadBytes()) {
        throw new InvalidEventException(
            "payload",
            "is "
                + bytes
                + " bytes, over the limit of "
                + limits.maxPayloadBytes()
                + " bytes; publish a reference to the data instead, or raise "
                + "EventLimits.maxPayloadBytes");
      }
      try {
        Json.parse(payload);
      } catch (JsonProcessingException e) {
        throw new InvalidEventException(
            "payload", "is not valid JSON: " + e.getOriginalMessage().replace('\n', ' '));
      }
    }
  }
}
