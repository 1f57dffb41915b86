package io.tandem.outbox;

import java.time.Instant;
import java.util.UUID;

/** An event the relay gave up on, waiting for an operator to replay or skip it. */
public record QuarantinedEvent(
    UUID eventId,
    String aggregateType,
    String aggregateId,
    long aggregateVersion,
    String eventType,
    int attempts,
    String errorClass,
    String lastError,
    Instant quarantinedAt,
    Instant createdAt) {}
