package io.tandem.saga;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The life of a saga instance, with its one transition table. {@code COMPLETED} and {@code
 * COMPENSATED} are final; {@code STUCK} means a compensation kept failing past its limit and an
 * operator must look (it can be {@linkplain SagaOrchestrator#retryStuck retried}).
 */
public enum SagaStatus {
  RUNNING,
  COMPENSATING,
  COMPLETED,
  COMPENSATED,
  STUCK;

  private static final Map<SagaStatus, Set<SagaStatus>> NEXT =
      Map.of(
          RUNNING, EnumSet.of(RUNNING, COMPENSATING, COMPLETED, COMPENSATED),
          COMPENSATING, EnumSet.of(COMPENSATING, COMPENSATED, STUCK),
          STUCK, EnumSet.of(COMPENSATING),
          COMPLETED, EnumSet.noneOf(SagaStatus.class),
          COMPENSATED, EnumSet.noneOf(SagaStatus.class));

  /** Whether an instance may move from this status to {@code next}. */
  public boolean canBecome(SagaStatus next) {
    return NEXT.get(this).contains(next);
  }

  /** Whether the saga has ended for good. */
  public boolean terminal() {
    return this == COMPLETED || this == COMPENSATED;
  }
}
