package io.tandem.bench;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A steady offered load of single-event commits through the library ({@code Outbox.append} per
 * commit), and its latencies: commit-to-published from the rows' own timestamps ({@code
 * published_at − created_at}, the database's clock on both ends, read with {@code
 * OutboxOperations.publishDelays}), and, where the relay publishes through a {@link
 * TimingTransport} in this JVM, commit-to-ack (the writer's clock after its commit returned, to the
 * transport's clock when the broker's acknowledgement came back). Nearest-rank percentiles.
 */
final class SteadyLoad {
  private SteadyLoad() {}

  /**
   * Commits {@code rate} events per second for {@code window} (bulk sequence numbers from {@code
   * first}), waits until a relay has published them all, and returns the commit-to-published p50
   * and p99 in ms.
   *
   * @throws IllegalStateException if they are not all published within two minutes
   */
  static double[] latencyMillis(
      BenchDatabase db, long first, int rate, Duration window, int aggregates) throws Exception {
    long total = offer(db, first, rate, window, aggregates, new ConcurrentHashMap<>());
    return markedMillis(db, total);
  }

  /**
   * As {@link #latencyMillis(BenchDatabase, long, int, Duration, int)} for a relay that publishes
   * through {@code acks}: returns commit-to-ack p50 and p99, then commit-to-published p50 and p99,
   * in ms.
   */
  static double[] latencyMillis(
      BenchDatabase db, long first, int rate, Duration window, int aggregates, TimingTransport acks)
      throws Exception {
    ConcurrentHashMap<UUID, Long> commits = new ConcurrentHashMap<>();
    long total = offer(db, first, rate, window, aggregates, commits);
    long unacked = commits.keySet().stream().filter(id -> !acks.ackNanos.containsKey(id)).count();
    if (unacked > 0) { // marked published without an ack seen here: the measure would be partial
      throw new IllegalStateException(
          unacked + " of the steady load's events were published without an ack seen by the bench");
    }
    double[] acked = AckLatencies.millis(commits, acks);
    double[] marked = markedMillis(db, total);
    return new double[] {acked[0], acked[1], marked[0], marked[1]};
  }

  private static long offer(
      BenchDatabase db,
      long first,
      int rate,
      Duration window,
      int aggregates,
      ConcurrentHashMap<UUID, Long> commits)
      throws Exception {
    long total = rate * window.toSeconds();
    long start = System.nanoTime();
    for (long i = 0; i < total; i++) {
      long wait = start + (long) (i * 1e9 / rate) - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      UUID id = db.append(first + i, aggregates);
      commits.put(id, System.nanoTime());
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (db.pending() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the steady load was not all published within 2 min");
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    return total;
  }

  private static double[] markedMillis(BenchDatabase db, long total) {
    List<Double> millis =
        db.operations.publishDelays((int) total).stream().map(d -> d.toNanos() / 1e6).toList();
    Percentiles p = new Percentiles(millis);
    return new double[] {p.at(0.50), p.at(0.99)};
  }
}
