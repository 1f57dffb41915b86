package io.tandem.inbox.internal;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits between attempts. The consumer's retries, backoffs and lane pauses all wait through one, so
 * that tests control time (a sleeper that records the delays and returns at once) instead of
 * sleeping.
 */
@FunctionalInterface
public interface Sleeper {
  /**
   * Waits {@code delay} unless {@code stopping} turns true first.
   *
   * @return true when the whole delay passed, false when stopping (or an interrupt) cut it short
   */
  boolean sleep(Duration delay, BooleanSupplier stopping);

  /** Sleeps on the calling thread in slices of at most 50 ms, watching {@code stopping}. */
  Sleeper SYSTEM =
      (delay, stopping) -> {
        long deadline = System.nanoTime() + delay.toNanos();
        while (!stopping.getAsBoolean()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return true;
          }
          try {
            Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        }
        return false;
      };
}
