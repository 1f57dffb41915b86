package io.tandem.examples.outbox;

import io.tandem.examples.Check;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
 * @param crashBatch orders confirmed before the measured run, which the killed relay published and
 *     never marked
 * @param recoveryMillis from the (last) kill until billing had applied the whole crash batch
 * @param measuredOrders orders of the measured run, whose latency the percentiles give
 * @param p50Millis median latency of a measured order, from its commit until billing's invoice
 *     committed
 * @param p99Millis 99th percentile of the same
 * @param elapsedMillis wall time of the whole demo
 * @param timings how long the start-up and the run took
 */
public record DemoReport(
    long committed,
    long published,
    long delivered,
    long duplicatesDelivered,
    long duplicateSideEffects,
    long lost,
    int relayCrashes,
    int crashBatch,
    long recoveryMillis,
    int measuredOrders,
    double p50Millis,
    double p99Millis,
    long elapsedMillis,
    Timings timings) {

  /**
   * Where the demo's time went.
   *
   * @param serversMillis starting the embedded PostgreSQL and Kafka broker (close to 0 on servers
   *     it was given)
   * @param startupMillis servers, databases, schemas and the consumer joined
   * @param runMillis from the first commit until billing had every event, duplicates included
   */
  public record Timings(long serversMillis, long startupMillis, long runMillis) {}

  /** What was checked, in plain words, with this run's figures. */
  public List<Check> checks() {
    List<Check> checks = new ArrayList<>();
    checks.add(
        new Check(
            String.format(
                Locale.ROOT,
                "no committed order was lost: %d committed in the order service's outbox, %d"
                    + " recorded in billing's inbox",
                committed,
                delivered),
            lost == 0 && delivered == committed && committed > 0));
    checks.add(
        new Check(
            String.format(
                Locale.ROOT,
                "every committed event was published and marked only after the broker's ack: %d"
                    + " of %d marked published",
                published,
                committed),
            published == committed));
    checks.add(
        new Check(
            String.format(
                Locale.ROOT,
                "no order was invoiced twice, though %d deliveries were duplicates: billing's inbox"
                    + " turned each into a no-op",
                duplicatesDelivered),
            duplicateSideEffects == 0));
    if (relayCrashes > 0) {
      checks.add(
          new Check(
              String.format(
                  Locale.ROOT,
                  "the relay killed after the broker's ack really left its batch unmarked, and"
                      + " another relay published it again: %d duplicates for a batch of %d",
                  duplicatesDelivered,
                  crashBatch),
              duplicatesDelivered >= crashBatch));
    }
    return checks;
  }

  /** True when every check held. */
  public boolean ok() {
    return Check.allHeld(checks());
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
    sb.append(", \"checks\": [");
    List<Check> checks = checks();
    for (int i = 0; i < checks.size(); i++) {
      Check c = checks.get(i);
      sb.append(i == 0 ? "" : ", ")
          .append("{\"check\": \"")
          .append(c.statement().replace("\\", "\\\\").replace("\"", "\\\""))
          .append("\", \"held\": ")
          .append(c.held())
          .append('}');
    }
    return sb.append("], \"ok\": ").append(ok()).append('}').toString();
  }

  /** The report for people: a sentence on the run, the figures, then what was checked. */
  public String toTable() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%d %s in %.1f s after a start-up of %.1f s (%d of them the killed relay's batch,"
                + " published again %.1f s after the kill); a measured order took %.0f ms from"
                + " its commit to billing's invoice at the median, %.0f ms at the 99th"
                + " percentile%n%n",
            committed,
            committed == 1 ? "order" : "orders",
            timings.runMillis() / 1000.0,
            timings.startupMillis() / 1000.0,
            crashBatch,
            recoveryMillis / 1000.0,
            p50Millis,
            p99Millis));
    asMap().forEach((k, v) -> sb.append(String.format(Locale.ROOT, "%-24s %s%n", k, v)));
    sb.append(System.lineSeparator())
        .append("checked, reading both services' databases back:")
        .append(System.lineSeparator())
        .append(Check.render(checks()))
        .append(ok() ? "result: OK, every check held" : "result: FAILED")
        .append(System.lineSeparator());
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
    m.put("crash_batch", crashBatch);
    m.put("recovery_ms", recoveryMillis);
    m.put("measured_orders", measuredOrders);
    m.put("p50_ms", round(p50Millis));
    m.put("p99_ms", round(p99Millis));
    m.put("servers_ms", timings.serversMillis());
    m.put("startup_ms", timings.startupMillis());
    m.put("run_ms", timings.runMillis());
    m.put("elapsed_ms", elapsedMillis);
    return m;
  }

  private static String round(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
