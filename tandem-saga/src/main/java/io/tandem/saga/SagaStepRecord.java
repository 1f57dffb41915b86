package io.tandem.saga;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One command a saga sent and what came back, from its step log.
 *
 * @param outcome {@code PENDING}, {@code SUCCEEDED}, {@code FAILED}, {@code TIMED_OUT} or {@code
 *     SUPERSEDED}
 */
public record SagaStepRecord(
    int seq,
    String step,
    int stepIndex,
    boolean compensation,
    int attempt,
    UUID commandId,
    String command,
    String outcome,
    Optional<String> replyType,
    Optional<String> reply,
    Instant startedAt,
    Optional<Instant> endedAt) {}
