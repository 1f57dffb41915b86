package io.tandem.saga.internal;

import io.tandem.saga.SagaStatus;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** One row of {@code tandem_saga} as read (and, with changes, written back). */
public record SagaRow(
    UUID id,
    String type,
    SagaStatus status,
    int stepIndex,
    int attempt,
    List<Integer> pending,
    String data,
    long version,
    Instant wakeupAt,
    Instant deadlineAt,
    String lastError,
    Instant startedAt,
    Instant updatedAt,
    Instant endedAt) {

  public SagaRow with(SagaStatus status, int stepIndex, int attempt) {
    return new SagaRow(
        id,
        type,
        status,
        stepIndex,
        attempt,
        pending,
        data,
        version,
        wakeupAt,
        deadlineAt,
        lastError,
        startedAt,
        updatedAt,
        endedAt);
  }

  public SagaRow withPending(List<Integer> pending) {
    return new SagaRow(
        id,
        type,
        status,
        stepIndex,
        attempt,
        List.copyOf(pending),
        data,
        version,
        wakeupAt,
        deadlineAt,
        lastError,
        startedAt,
        updatedAt,
        endedAt);
  }

  public SagaRow withData(String data) {
    return new SagaRow(
        id,
        type,
        status,
        stepIndex,
        attempt,
        pending,
        data,
        version,
        wakeupAt,
        deadlineAt,
        lastError,
        startedAt,
        updatedAt,
        endedAt);
  }

  public SagaRow withWakeup(Instant wakeupAt) {
    return new SagaRow(
        id,
        type,
        status,
        stepIndex,
        attempt,
        pending,
        data,
        version,
        wakeupAt,
        deadlineAt,
        lastError,
        startedAt,
        updatedAt,
        endedAt);
  }

  public SagaRow withError(String lastError) {
    return new SagaRow(
        id,
        type,
        status,
        stepIndex,
        attempt,
        pending,
        data,
        version,
        wakeupAt,
        deadlineAt,
        lastError,
        startedAt,
        updatedAt,
        endedAt);
  }
}
