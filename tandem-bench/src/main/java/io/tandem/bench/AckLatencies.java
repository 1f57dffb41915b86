package io.tandem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Commit-to-ack latencies of the relay benchmark's writers, from their commit times and the
 * transport's acknowledgement times; with {@code TANDEM_BENCH_TRACE}, the late ones per 100 ms.
 */
final class AckLatencies {
  private AckLatencies() {}

  /** p50 and p99 commit-to-ack in ms of the {@code commits} that {@code t} saw acknowledged. */
  static double[] millis(ConcurrentHashMap<UUID, Long> commits, TimingTransport t) {
    List<Double> millis = new ArrayList<>(commits.size());
    commits.forEach(
        (id, committedAt) -> {
          Long acked = t.ackNanos.get(id);
          if (acked != null) {
            millis.add((acked - committedAt) / 1e6);
          }
        });
    Percentiles p = new Percentiles(millis);
    if (System.getenv("TANDEM_BENCH_TRACE") != null) {
      long t0 = commits.values().stream().mapToLong(Long::longValue).min().orElse(0);
      java.util.TreeMap<Long, double[]> buckets = new java.util.TreeMap<>();
      commits.forEach(
          (id, c) -> {
            Long a = t.ackNanos.get(id);
            Long sent = t.sentNanos.get(id);
            if (a != null) {
              double[] b = buckets.computeIfAbsent((c - t0) / 100_000_000L, k -> new double[4]);
              b[0] = Math.max(b[0], (a - c) / 1e6);
              if ((a - c) / 1e6 > 25) {
                b[1]++;
                if (sent != null) {
                  b[2] = Math.max(b[2], (sent - c) / 1e6);
                  b[3] = Math.max(b[3], (a - sent) / 1e6);
                }
              }
            }
          });
      buckets.forEach(
          (k, v) -> {
            if (v[1] > 0) {
              System.err.printf(
                  "TRACE t=%.1fs max=%.1fms over25=%d (late ones: commit-to-send up to %.1fms,"
                      + " send-to-ack up to %.1fms)%n",
                  k / 10.0, v[0], (int) v[1], v[2], v[3]);
            }
          });
    }
    return new double[] {p.at(0.50), p.at(0.99)};
  }
}
