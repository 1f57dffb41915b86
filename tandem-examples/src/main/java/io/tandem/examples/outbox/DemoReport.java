package io.tandem.examples.outbox;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the outbox demo measured, read back from the services' databases where it can be.
 *
 * @param committed events committed by the order service (outbox rows)
 * @param published outbox rows marked published
 * @param delivered distinct events the billing consumer recorded in its inbox
 * @param duplicatesDelivered deliveries the inbox recognised as duplicates
 * @param duplicateSideEffects invoices beyond one per order (must be 0)
 * @param lost committed events with no inbox record at the consumer (must be 0)
 * @param relayCrashes relays killed after the broker's ack and before marking
 * @param p50Millis median commit-to-consumer latency
 * @param p99Millis 99th percentile commit-to-consumer latency
 * @param elapsedMillis wall time of the run
 */
public record DemoReport(
    long committed,
    long published,
    long delivered,
    long duplicatesDelivered,
    long duplicateSideEffects,
    long lost,
    int relayCrashes,
    double p50Millis,
    double p99Millis,
    long elapsedMillis) {

  /** True when nothing committed was lost and no side effect happened twice. */
  public boolean ok() {
    return lost == 0 && duplicateSideEffects == 0;
  }

  /** The report as one JSON object with snake_case keys. */
  public String toJson() {
    StringBuilder sb = new StringBuilder("{");
    asMap()
        .forEach(
            (k, v) -> {
              if (sb.length() > 1) {
                sb.append(", ");
              }
              sb.append('"').append(k).append("\": ").append(v);
            });
    return sb.append('}').toString();
  }

  /** The report as an aligned two-column table. */
  public String toTable() {
    StringBuilder sb = new StringBuilder();
    asMap().forEach((k, v) -> sb.append(String.format("%-24s %s%n", k, v)));
    sb.append(String.format("%-24s %s%n", "result", ok() ? "OK" : "FAILED"));
    return sb.toString();
  }

  private Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("committed", committed);
    m.put("published", published);
    m.put("delivered", delivered);
    m.put("duplicates_delivered", duplicatesDelivered);
    m.put("duplicate_side_effects", duplicateSideEffects);
    m.put("lost", lost);
    m.put("relay_crashes", relayCrashes);
    m.put("p50_ms", round(p50Millis));
    m.put("p99_ms", round(p99Millis));
    m.put("elapsed_ms", elapsedMillis);
    m.put("ok", ok());
    return m;
  }

  private static String round(double v) {
    return String.format(java.util.Locale.ROOT, "%.1f", v);
  }
}
