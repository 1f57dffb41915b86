package io.tandem.examples.checkout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.examples.Check;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the checkout demo measured, read back from the services' databases.
 *
 * @param sagas checkout sagas the orchestrator recorded, the warm-up's included
 * @param completed sagas that completed (order confirmed, paid, reserved, shipped)
 * @param compensated sagas that were compensated (declined, out of stock)
 * @param stuck sagas whose compensation kept failing (must be 0)
 * @param running sagas not ended when the demo stopped waiting (must be 0)
 * @param declined compensated because the card was declined
 * @param outOfStock compensated because the pivot found no stock (refund, then cancel)
 * @param plannedDeclined checkouts the mix paid with a declined card
 * @param plannedOutOfStock checkouts the mix sent to the sold-out product
 * @param shippingRetries carrier calls that failed transiently and were retried
 * @param netChargedCents money the payment service holds: charges minus refunds
 * @param confirmedCents the total of the confirmed orders (equal to the net charge when money is
 *     conserved)
 * @param checks what was checked after the run, in plain words, and whether each held
 * @param violations what does not hold (the first few), in detail
 * @param sagasPerSecond ended sagas per second, from the first start to the last end
 * @param p50Millis median saga duration
 * @param p99Millis 99th percentile saga duration
 * @param elapsedMillis wall time of the whole run, start-up included
 * @param timings how long the start-up and the run took
 * @param warmUpCheckouts checkouts run before the timed ones (counted in the figures and checks,
 *     not in the rate or the percentiles)
 * @param paymentDatabase {@code mariadb} or {@code postgresql}
 * @param mode {@code orchestration} or {@code choreography}
 * @param orchestratorKills how many times the orchestrator process was killed with {@code SIGKILL}
 *     during the run
 */
public record CheckoutReport(
    long sagas,
    long completed,
    long compensated,
    long stuck,
    long running,
    long declined,
    long outOfStock,
    long plannedDeclined,
    long plannedOutOfStock,
    long shippingRetries,
    long netChargedCents,
    long confirmedCents,
    List<Check> checks,
    List<String> violations,
    double sagasPerSecond,
    double p50Millis,
    double p99Millis,
    long elapsedMillis,
    Timings timings,
    int warmUpCheckouts,
    String paymentDatabase,
    String mode,
    int orchestratorKills) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Where a run's time went.
   *
   * @param serversMillis starting the servers the demo embeds (PostgreSQL, the Kafka broker); 0 on
   *     servers it was given
   * @param startupMillis the whole start-up: servers, databases and schemas, relays and consumers
   *     joined, the warm-up, until the first timed checkout started
   * @param runMillis from the first checkout's start until every one had ended
   */
  public record Timings(long serversMillis, long startupMillis, long runMillis) {}

  public CheckoutReport {
    checks = List.copyOf(checks);
    violations = List.copyOf(violations);
  }

  /** True when every check held. */
  public boolean invariantsOk() {
    return Check.allHeld(checks);
  }

  /** The report as one JSON object with snake_case keys. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(asMap(true));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the report", e);
    }
  }

  /**
   * The report for people: a sentence on the run, the figures as an aligned two-column table, then
   * what was checked and whether it held, and the violations in detail.
   */
  public String toTable() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%d %s (%s) in %.1f s after a start-up of %.1f s: %.1f checkouts/s, each"
                + " taking %.0f ms at the median and %.0f ms at the 99th percentile%n%n",
            sagas - warmUpCheckouts,
            sagas - warmUpCheckouts == 1 ? "checkout" : "checkouts",
            mode,
            timings.runMillis() / 1000.0,
            timings.startupMillis() / 1000.0,
            sagasPerSecond,
            p50Millis,
            p99Millis));
    asMap(false).forEach((k, v) -> sb.append(String.format(Locale.ROOT, "%-24s %s%n", k, v)));
    sb.append(System.lineSeparator())
        .append("checked, reading the services' databases back:")
        .append(System.lineSeparator())
        .append(Check.render(checks));
    for (String v : violations) {
      sb.append("  violated: ").append(v).append(System.lineSeparator());
    }
    sb.append(
        invariantsOk()
            ? "result: OK, every check held" + System.lineSeparator()
            : "result: FAILED" + System.lineSeparator());
    return sb.toString();
  }

  private Map<String, Object> asMap(boolean withViolations) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mode", mode);
    m.put("sagas", sagas);
    m.put("completed", completed);
    m.put("compensated", compensated);
    m.put("stuck", stuck);
    m.put("running", running);
    m.put("declined", declined);
    m.put("out_of_stock", outOfStock);
    m.put("planned_declined", plannedDeclined);
    m.put("planned_out_of_stock", plannedOutOfStock);
    m.put("shipping_retries", shippingRetries);
    m.put("orchestrator_kills", orchestratorKills);
    m.put("net_charged_cents", netChargedCents);
    m.put("confirmed_cents", confirmedCents);
    m.put("invariants_ok", invariantsOk());
    if (withViolations) {
      m.put("checks", Check.asJson(checks));
      m.put("violations", violations);
    }
    m.put("sagas_per_s", round(sagasPerSecond));
    m.put("p50_ms", round(p50Millis));
    m.put("p99_ms", round(p99Millis));
    m.put("warm_up_checkouts", warmUpCheckouts);
    m.put("servers_ms", timings.serversMillis());
    m.put("startup_ms", timings.startupMillis());
    m.put("run_ms", timings.runMillis());
    m.put("elapsed_ms", elapsedMillis);
    m.put("payment_database", paymentDatabase);
    return m;
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
