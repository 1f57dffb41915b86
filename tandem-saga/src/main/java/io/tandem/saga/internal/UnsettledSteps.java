package io.tandem.saga.internal;

import io.tandem.saga.SagaStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Replies whose handler moved their saga on in a transaction that has not committed yet: the
 * consumer's commit of such a reply is a step transition (a duplicate or a stale reply commits too,
 * and is not one). The inbox says when a reply's transaction committed, never when it rolled back;
 * a rolled-back reply is usually applied again (which replaces its entry), but one that never comes
 * back (its partition moved to another instance, the consumer stopped) would stay for good. So an
 * entry older than {@link #RETENTION} — far longer than any batch transaction lives — is dropped,
 * swept at most once per {@code RETENTION} while replies arrive. Thread-safe.
 */
final class UnsettledSteps {
  /** How long an entry waits for its commit before it is taken for rolled back. */
  static final Duration RETENTION = Duration.ofMinutes(10);

  /** A reply's step: its saga and the status the saga ended in, or null if it only moved on. */
  record Step(UUID sagaId, SagaStatus endedIn, Instant appliedAt) {}

  private final Map<UUID, Step> steps = new ConcurrentHashMap<>();
  private final Clock clock;
  private volatile Instant nextSweep;

  UnsettledSteps(Clock clock) {
    this.clock = clock;
    this.nextSweep = clock.instant().plus(RETENTION);
  }

  /** A reply moved its saga on (ended it in {@code endedIn}, or null); its commit is awaited. */
  void applied(UUID replyId, UUID sagaId, SagaStatus endedIn) {
    Instant now = clock.instant();
    steps.put(replyId, new Step(sagaId, endedIn, now));
    if (!now.isBefore(nextSweep)) {
      nextSweep = now.plus(RETENTION);
      Instant oldest = now.minus(RETENTION);
      steps.values().removeIf(s -> s.appliedAt().isBefore(oldest));
    }
  }

  /** Takes out a reply's step (null if it has none): on its commit, or when it is retried. */
  Step take(UUID replyId) {
    return steps.remove(replyId);
  }

  /** How many replies await their commit (for tests). */
  int size() {
    return steps.size();
  }
}
