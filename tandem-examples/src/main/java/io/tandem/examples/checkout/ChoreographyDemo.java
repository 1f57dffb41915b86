package io.tandem.examples.checkout;

import io.tandem.examples.Check;
import io.tandem.examples.choreography.CheckoutOutcome;
import io.tandem.examples.choreography.ChoreographedCheckout;
import io.tandem.examples.choreography.ChoreographyInvariants;
import io.tandem.examples.choreography.FailureMix;
import io.tandem.examples.choreography.PlacedOrder;
import io.tandem.saga.TrailEntry;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The checkout demo as a choreography ({@link ChoreographedCheckout}: the same four services
 * reacting to each other's events, no orchestrator), reported in the same shape as the orchestrated
 * {@link CheckoutDemo} so that the two compare side by side.
 *
 * <p>The mix maps onto {@link FailureMix} percentages: the decline rate, the out-of-stock rate, and
 * the shipping failure rate as the share of orders whose carrier fails once or twice before it
 * accepts. Orders are placed all at once ({@code inFlight} does not apply). A checkout's duration
 * runs from its first event ({@code OrderCreated}) to its last (the order confirmed or cancelled),
 * read from the services' outboxes.
 */
public final class ChoreographyDemo {
  private final CheckoutDemoSettings settings;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;

  public ChoreographyDemo(CheckoutDemoSettings settings, PrintStream progress) {
    if (settings.orchestratorKills() > 0) {
      throw new IllegalArgumentException(
          "orchestrator kills apply to orchestration; a choreography has no orchestrator to kill");
    }
    this.settings = settings;
    this.progress = progress;
  }

  /** The failure mix of {@code settings} in percent. */
  static FailureMix mix(CheckoutDemoSettings s) {
    return new FailureMix(
        percent(s.declineRate()), percent(s.outOfStockRate()), percent(s.shippingFailureRate()));
  }

  private static int percent(double rate) {
    return (int) Math.round(rate * 100);
  }

  /**
   * Client settings (TLS, SASL) every Kafka client of the demo gets for the Kafka of {@code
   * kafkaBootstrap}, its child processes through their environment; none by default. Never printed.
   */
  public ChoreographyDemo kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  /** Runs the demo; every server and database it started or created is gone afterwards. */
  public CheckoutReport run() {
    long start = System.nanoTime();
    FailureMix mix = mix(settings);
    String mariadb = null;
    if (settings.useMariaDb()) {
      String env = System.getenv("TANDEM_MARIADB_URL");
      mariadb =
          settings.mariadbUrl() != null
              ? settings.mariadbUrl()
              : env != null && !env.isBlank() ? env : CheckoutDemo.LOCAL_MARIADB;
    }
    try (ChoreographedCheckout checkout =
        ChoreographedCheckout.builder()
            .jdbcUrl(settings.jdbcUrl())
            .kafkaBootstrap(settings.kafkaBootstrap())
            .kafkaClientProperties(kafkaClient)
            .mariadbUrl(mariadb)
            .progress(progress)
            .build()) {
      checkout.start();
      long startupMillis = CheckoutDemo.millisSince(start);
      long runStart = System.nanoTime();
      List<PlacedOrder> orders = checkout.run(settings.checkouts(), mix);
      boolean finished = checkout.awaitAllFinished(settings.timeout());
      long runMillis = CheckoutDemo.millisSince(runStart);
      double runSeconds = runMillis / 1e3;
      ChoreographyInvariants invariants = checkout.invariants();
      List<Double> millis = new ArrayList<>();
      long shippingRetries = 0;
      for (PlacedOrder order : orders) {
        List<TrailEntry> trail = checkout.trail(order.correlationId());
        if (!trail.isEmpty() && checkout.outcome(order.orderId()).finished()) {
          Instant first = trail.get(0).occurredAt();
          Instant last = trail.get(trail.size() - 1).occurredAt();
          millis.add(Duration.between(first, last).toNanos() / 1e6);
        }
        shippingRetries += order.request().shippingFailures();
      }
      Collections.sort(millis);
      List<String> violations = violations(invariants, finished);
      List<Check> checks = new ArrayList<>(invariants.checks());
      if (!finished) {
        checks.add(
            new Check("every order ended within the timeout of " + settings.timeout(), false));
      }
      return new CheckoutReport(
          invariants.placed(),
          invariants.confirmed(),
          invariants.cancelled(),
          0,
          invariants.pending(),
          invariants.declined(),
          invariants.outOfStock(),
          expected(orders, CheckoutOutcome.DECLINED),
          expected(orders, CheckoutOutcome.OUT_OF_STOCK),
          shippingRetries,
          invariants.netChargedCents(),
          invariants.confirmedAmountCents(),
          checks,
          violations,
          orders.size() / runSeconds,
          CheckoutDemo.percentile(millis, 0.50),
          CheckoutDemo.percentile(millis, 0.99),
          CheckoutDemo.millisSince(start),
          new CheckoutReport.Timings(checkout.serversMillis(), startupMillis, runMillis),
          0,
          checkout.paymentOnMariaDb() ? "mariadb" : "postgresql",
          "choreography",
          0);
    }
  }

  private static long expected(List<PlacedOrder> orders, CheckoutOutcome outcome) {
    return orders.stream().filter(o -> o.request().expectedOutcome() == outcome).count();
  }

  private static List<String> violations(ChoreographyInvariants i, boolean finished) {
    List<String> v = new ArrayList<>();
    if (!finished || i.pending() > 0) {
      v.add(i.pending() + " checkouts still moving: not all ended");
    }
    if (i.unexpectedOutcomes() > 0) {
      v.add(i.unexpectedOutcomes() + " checkouts ended otherwise than their data demands");
    }
    if (!i.moneyConserved()) {
      v.add(
          String.format(
              Locale.ROOT,
              "money: held %d cents, confirmed %d cents, %d orders off",
              i.netChargedCents(),
              i.confirmedAmountCents(),
              i.moneyMismatches()));
    }
    if (!i.stockConserved()) {
      v.add(
          i.unbalancedProducts()
              + " products unbalanced, "
              + i.stockMismatches()
              + " off the confirmed units");
    }
    if (!i.noDoubleCharge()) {
      v.add(i.doubleCharges() + " orders charged or refunded twice");
    }
    if (i.deadLetters() > 0) {
      v.add(i.deadLetters() + " dead letters");
    }
    return v;
  }
}
