package io.tandem.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The consumer benchmark's figures, all from one run on the same database and broker.
 *
 * @param events events consumed per run
 * @param inboxPerSec one lane through the inbox (ordering guard, inbox record, business row)
 * @param barePerSec the same business row written by a bare handler, one transaction per event
 * @param bareBatchedPerSec the same rows written batch-wise by a bare handler, one commit per batch
 *     of up to {@code batch} events (the ceiling of a consumer paying one commit per batch)
 * @param parallelPerSec the inbox with per-aggregate lanes ({@code lanes})
 * @param singlePerSec the inbox with one lane (the {@code inboxPerSec} configuration, run again)
 * @param p50MsAt1000PerSec the one-lane inbox at 1,000 events/s offered: from an event's hand-over
 *     to the producer to the consumer's commit of it, median over every event of the window
 * @param p99MsAt1000PerSec the same, 99th percentile
 * @param lanes lanes of the parallel run
 * @param batch the bare batched handler's largest batch
 * @param database the database the figures come from
 */
public record ConsumerBenchReport(
    int events,
    double inboxPerSec,
    double barePerSec,
    double bareBatchedPerSec,
    double parallelPerSec,
    double singlePerSec,
    double p50MsAt1000PerSec,
    double p99MsAt1000PerSec,
    int lanes,
    int batch,
    String database) {

  public double inboxCostRatio() {
    return barePerSec / inboxPerSec;
  }

  /** inbox_per_s / bare_batched_per_s: how close the inbox comes to one commit per batch. */
  public double inboxVsBareBatched() {
    return inboxPerSec / bareBatchedPerSec;
  }

  /** inbox_per_s / bare_per_s: the inbox against a naive handler with no dedup at all. */
  public double inboxVsBare() {
    return inboxPerSec / barePerSec;
  }

  public double parallelSpeedup() {
    return parallelPerSec / singlePerSec;
  }

  /** One JSON object; the first seven keys are the benchmark's contract (issue 22). */
  public String toJson() {
    return BenchOutput.json(map());
  }

  public String toTable() {
    return BenchOutput.table(map(), 22);
  }

  private Map<String, Object> map() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("inbox_per_s", num(inboxPerSec));
    m.put("bare_per_s", num(barePerSec));
    m.put("bare_batched_per_s", num(bareBatchedPerSec));
    m.put("inbox_vs_bare_batched", String.format(Locale.ROOT, "%.3f", inboxVsBareBatched()));
    m.put("inbox_vs_bare", String.format(Locale.ROOT, "%.3f", inboxVsBare()));
    m.put("parallel_speedup", String.format(Locale.ROOT, "%.3f", parallelSpeedup()));
    m.put("p99_ms_at_1000_per_s", num(p99MsAt1000PerSec));
    m.put("p50_ms_at_1000_per_s", num(p50MsAt1000PerSec));
    m.put("inbox_cost_ratio", String.format(Locale.ROOT, "%.3f", inboxCostRatio()));
    m.put("parallel_per_s", num(parallelPerSec));
    m.put("single_per_s", num(singlePerSec));
    m.put("events", events);
    m.put("lanes", lanes);
    m.put("batch", batch);
    m.put("database", "\"" + database + "\"");
    m.put("jit", "\"" + BenchJvm.describe() + "\"");
    return m;
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
