package io.tandem.examples.checkout;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.UUID;

/**
 * When a checkout saga started and ended, as the orchestrator recorded them.
 *
 * @param ended null while it runs
 */
public record SagaTime(UUID sagaId, Instant started, Instant ended) {
  /** How long it ran, in milliseconds; NaN while it runs. */
  public double millis() {
    return ended == null ? Double.NaN : Duration.between(started, ended).toNanos() / 1e6;
  }

  /** Milliseconds from the first start to the last end of the ended ones; 0 when none ended. */
  public static double spanMillis(Collection<SagaTime> times) {
    Instant first = null;
    Instant last = null;
    for (SagaTime t : times) {
      if (t.ended == null) {
        continue;
      }
      first = first == null || t.started.isBefore(first) ? t.started : first;
      last = last == null || t.ended.isAfter(last) ? t.ended : last;
    }
    return first == null ? 0 : Duration.between(first, last).toNanos() / 1e6;
  }
}
