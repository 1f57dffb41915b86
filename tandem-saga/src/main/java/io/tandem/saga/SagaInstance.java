package io.tandem.saga;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A saga instance as stored: status, current step, data (JSON), version and — from {@link
 * SagaOrchestrator#find} — its full step log (empty in listings).
 */
public record SagaInstance(
    UUID id,
    String type,
    SagaStatus status,
    String currentStep,
    int attempt,
    String data,
    long version,
    Instant startedAt,
    Instant updatedAt,
    Optional<Instant> endedAt,
    Optional<String> lastError,
    List<SagaStepRecord> steps) {}
