package io.tandem.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The relay benchmark's figures. Null values were not measured ({@code --quick} skips the 1M-row
 * parts).
 *
 * @param events events per throughput run
 * @param throughputPerSec relay to Kafka, first claim to last ack
 * @param ceilingPerSec cheapest correct raw SQL loop over the same number of rows, no-op publish
 * @param p50Millis commit-to-ack median while 4 writers commit as fast as they can
 * @param p99Millis commit-to-ack 99th percentile in the same run
 * @param p99MillisAt1000PerSec commit-to-ack 99th percentile at a steady 1,000 events/s
 * @param writerRatioWithRelay writer commits/s with the relay running / without it (4 writers)
 * @param heapMb1mBacklog peak heap used by a relay process (-Xmx256m) draining 1M rows
 * @param claimMs10kPublished claim query time with 10k published rows in the table
 * @param claimMs1mPublished claim query time with 1M published rows in the table
 * @param writersAlonePerSec writer commits/s without the relay
 * @param writersWithRelayPerSec writer commits/s with the relay
 * @param offeredPerSec achieved offered rate of the steady-load run
 * @param ratioRounds the throughput / ceiling ratio of every measured pair of drains; the pair with
 *     the median ratio gives {@code throughputPerSec} and {@code ceilingPerSec}
 * @param writerRatioRounds the writer ratio of every measured round; the median is reported
 * @param p99MillisAt1000PerSecRounds the steady p99 of every measured window; the median is
 *     reported
 * @param database the database the figures come from
 */
public record RelayBenchReport(
    int events,
    double throughputPerSec,
    double ceilingPerSec,
    double p50Millis,
    double p99Millis,
    double p99MillisAt1000PerSec,
    double writerRatioWithRelay,
    Double heapMb1mBacklog,
    double claimMs10kPublished,
    Double claimMs1mPublished,
    double writersAlonePerSec,
    double writersWithRelayPerSec,
    double offeredPerSec,
    double[] ratioRounds,
    double[] writerRatioRounds,
    double[] p99MillisAt1000PerSecRounds,
    String database) {

  public double ratio() {
    return throughputPerSec / ceilingPerSec;
  }

  /** One JSON object; the first ten keys are the benchmark's contract. */
  public String toJson() {
    return BenchOutput.json(map());
  }

  public String toTable() {
    return BenchOutput.table(map(), 28);
  }

  private Map<String, Object> map() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("throughput_per_s", num(throughputPerSec));
    m.put("ceiling_per_s", num(ceilingPerSec));
    m.put("ratio", String.format(Locale.ROOT, "%.3f", ratio()));
    m.put("p50_ms", num(p50Millis));
    m.put("p99_ms", num(p99Millis));
    m.put("p99_ms_at_1000_per_s", num(p99MillisAt1000PerSec));
    m.put("writer_ratio_with_relay", String.format(Locale.ROOT, "%.3f", writerRatioWithRelay));
    m.put("heap_mb_1m_backlog", heapMb1mBacklog == null ? "null" : num(heapMb1mBacklog));
    m.put("claim_ms_10k_published", String.format(Locale.ROOT, "%.3f", claimMs10kPublished));
    m.put(
        "claim_ms_1m_published",
        claimMs1mPublished == null
            ? "null"
            : String.format(Locale.ROOT, "%.3f", claimMs1mPublished));
    m.put("events", events);
    m.put("writers_alone_per_s", num(writersAlonePerSec));
    m.put("writers_with_relay_per_s", num(writersWithRelayPerSec));
    m.put("offered_per_s", num(offeredPerSec));
    m.put("ratio_rounds", list(ratioRounds, "%.3f"));
    m.put("writer_ratio_rounds", list(writerRatioRounds, "%.3f"));
    m.put("p99_ms_at_1000_per_s_rounds", list(p99MillisAt1000PerSecRounds, "%.1f"));
    m.put("database", "\"" + database + "\"");
    m.put("jit", "\"" + BenchJvm.describe() + "\"");
    return m;
  }

  private static String list(double[] values, String format) {
    StringBuilder b = new StringBuilder("[");
    for (double v : values) {
      b.append(b.length() > 1 ? ", " : "").append(String.format(Locale.ROOT, format, v));
    }
    return b.append(']').toString();
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.1f", v);
  }
}
