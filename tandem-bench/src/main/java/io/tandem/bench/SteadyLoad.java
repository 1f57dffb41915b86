package io.tandem.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A steady offered load of single-event commits, and the commit-to-published latency read from the
 * rows' own timestamps ({@code published_at − created_at}: the database's clock on both ends, so
 * that whichever relay marked the rows, the measure is the same).
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
      db.insertRange(first + i, first + i + 1, aggregates);
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (db.pending() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the steady load was not all published within 2 min");
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d), percentile_cont(0.99)"
                    + " WITHIN GROUP (ORDER BY d) FROM (SELECT extract(epoch FROM published_at -"
                    + " created_at) * 1000 AS d FROM tandem_outbox ORDER BY id DESC LIMIT "
                    + total
                    + ") t")) {
      rs.next();
      return new double[] {rs.getDouble(1), rs.getDouble(2)};
    }
  }
}
