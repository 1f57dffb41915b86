package io.tandem.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A steady offered load of single-event commits, and the commit-to-published latency read from the
 * rows' own timestamps ({@code published_at − created_at}: the database's clock on both ends, so
 * that whichever relay marked the rows, the measure is the same), both through the library: {@code
 * Outbox.append} per commit, {@code OutboxOperations.publishDelays} for the latencies (nearest-rank
 * percentiles).
 */
final class SteadyLoad {
  private SteadyLoad() {}

  /**
   * Commits {@code rate} events per second for {@code window} (bulk sequence numbers from {@code
   * first}), waits until a relay has published them all, and returns p50 and p99 in ms.
   *
   * @throws IllegalStateException if they are not all published within two minutes
   */
  static double[] latencyMillis(
      BenchDatabase db, long first, int rate, Duration window, int aggregates) throws Exception {
    long total = rate * window.toSeconds();
    long start = System.nanoTime();
    for (long i = 0; i < total; i++) {
      long wait = start + (long) (i * 1e9 / rate) - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      db.append(first + i, aggregates);
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (db.pending() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the steady load was not all published within 2 min");
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    List<Double> millis =
        db.operations.publishDelays((int) total).stream().map(d -> d.toNanos() / 1e6).toList();
    Percentiles p = new Percentiles(millis);
    return new double[] {p.at(0.50), p.at(0.99)};
  }
}
