package io.tandem.examples.choreography;

import io.tandem.examples.Check;
import io.tandem.examples.Money;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the four services' databases say about a run, read back by {@link
 * ChoreographedCheckout#invariants()}. Each figure is computed from the databases alone, except the
 * expected outcomes, which follow from the rules of {@link OrderRequest}.
 *
 * @param placed orders placed through the {@link ChoreographedCheckout}
 * @param confirmed orders confirmed (paid, reserved, shipment requested)
 * @param declined orders cancelled after a declined payment
 * @param outOfStock orders cancelled after a refund for missing stock
 * @param pending orders still moving
 * @param unexpectedOutcomes finished orders whose outcome differs from what their data demands
 * @param confirmedAmountCents the total of the confirmed orders
 * @param netChargedCents what the payment service holds: charges minus refunds
 * @param moneyMismatches finished orders whose net charge is not their amount (confirmed) or 0
 *     (cancelled)
 * @param doubleCharges orders charged, or refunded, more than once
 * @param unbalancedProducts products whose available and reserved units do not add up to their
 *     initial stock
 * @param stockMismatches products whose reserved units differ from the confirmed orders' units
 * @param deadLetters open dead letters in the four inboxes
 * @param duplicatesAbsorbed deliveries the inboxes recognised as duplicates (redeliveries included)
 */
public record ChoreographyInvariants(
    int placed,
    int confirmed,
    int declined,
    int outOfStock,
    int pending,
    int unexpectedOutcomes,
    long confirmedAmountCents,
    long netChargedCents,
    int moneyMismatches,
    long doubleCharges,
    long unbalancedProducts,
    int stockMismatches,
    long deadLetters,
    long duplicatesAbsorbed) {

  /**
   * Computes the invariants of {@code placed} orders from what the services' databases hold.
   *
   * @param outcomes the order service's outcome per order id
   * @param netCharged the payment service's charges minus refunds per order id
   * @param reservedUnits the inventory's reserved units per product
   */
  static ChoreographyInvariants of(
      Collection<PlacedOrder> placed,
      Map<String, CheckoutOutcome> outcomes,
      Map<String, Long> netCharged,
      Map<String, Long> reservedUnits,
      long doubleCharges,
      long unbalancedProducts,
      long deadLetters,
      long duplicatesAbsorbed) {
    Map<CheckoutOutcome, Integer> counts = new HashMap<>();
    int unexpected = 0;
    int moneyOff = 0;
    long confirmedAmount = 0;
    Map<String, Long> confirmedUnits = new HashMap<>();
    for (PlacedOrder order : placed) {
      OrderRequest r = order.request();
      CheckoutOutcome outcome = outcomes.getOrDefault(order.orderId(), CheckoutOutcome.PENDING);
      counts.merge(outcome, 1, Integer::sum);
      if (!outcome.finished()) {
        continue;
      }
      if (outcome != r.expectedOutcome()) {
        unexpected++;
      }
      long due = outcome == CheckoutOutcome.CONFIRMED ? r.amountCents() : 0;
      if (netCharged.getOrDefault(order.orderId(), 0L) != due) {
        moneyOff++;
      }
      if (outcome == CheckoutOutcome.CONFIRMED) {
        confirmedAmount += r.amountCents();
        confirmedUnits.merge(r.product(), (long) r.quantity(), Long::sum);
      }
    }
    int stockOff = 0;
    for (Map.Entry<String, Long> product : reservedUnits.entrySet()) {
      if (!product.getValue().equals(confirmedUnits.getOrDefault(product.getKey(), 0L))) {
        stockOff++;
      }
    }
    for (String product : confirmedUnits.keySet()) {
      if (!reservedUnits.containsKey(product)) {
        stockOff++; // confirmed without a stock row: units came from nowhere
      }
    }
    return new ChoreographyInvariants(
        placed.size(),
        counts.getOrDefault(CheckoutOutcome.CONFIRMED, 0),
        counts.getOrDefault(CheckoutOutcome.DECLINED, 0),
        counts.getOrDefault(CheckoutOutcome.OUT_OF_STOCK, 0),
        counts.getOrDefault(CheckoutOutcome.PENDING, 0),
        unexpected,
        confirmedAmount,
        netCharged.values().stream().mapToLong(Long::longValue).sum(),
        moneyOff,
        doubleCharges,
        unbalancedProducts,
        stockOff,
        deadLetters,
        duplicatesAbsorbed);
  }

  /** Orders cancelled, whatever the reason. */
  public int cancelled() {
    return declined + outOfStock;
  }

  /** Every charge of a cancelled order was refunded, and the money held is the confirmed total. */
  public boolean moneyConserved() {
    return moneyMismatches == 0 && netChargedCents == confirmedAmountCents;
  }

  /** No unit was created or lost, and the reserved units are exactly the confirmed orders'. */
  public boolean stockConserved() {
    return unbalancedProducts == 0 && stockMismatches == 0;
  }

  /** No order was charged or refunded twice. */
  public boolean noDoubleCharge() {
    return doubleCharges == 0;
  }

  /** Every order finished as its data demands, with every invariant intact and no dead letter. */
  public boolean holds() {
    return pending == 0
        && unexpectedOutcomes == 0
        && moneyConserved()
        && stockConserved()
        && noDoubleCharge()
        && deadLetters == 0;
  }

  /** Each invariant as a sentence with this run's figures, and whether it held. */
  public List<Check> checks() {
    return List.of(
        new Check(
            String.format(
                Locale.ROOT,
                "every order ended: %d confirmed, %d cancelled, none still moving",
                confirmed,
                cancelled()),
            pending == 0),
        new Check(
            String.format(
                Locale.ROOT,
                "every order ended as its data said: %d declined cards and %d sold-out orders"
                    + " cancelled, the rest confirmed",
                declined,
                outOfStock),
            unexpectedOutcomes == 0),
        new Check(
            String.format(
                Locale.ROOT,
                "money conserved: the payment service holds %s, the confirmed orders' total; every"
                    + " cancelled order was refunded in full",
                Money.format(netChargedCents)),
            moneyConserved()),
        new Check("no order was charged or refunded twice", noDoubleCharge()),
        new Check(
            "stock conserved: reserved units are exactly the confirmed orders', none created or"
                + " lost",
            stockConserved()),
        new Check("nothing was dead-lettered", deadLetters == 0));
  }

  /** A table for people. */
  public String toTable() {
    return String.format(
        Locale.ROOT,
        """
        orders placed           %d
          confirmed             %d
          cancelled, declined   %d
          cancelled, no stock   %d
          still pending         %d
          unexpected outcome    %d
        money conserved         %s (held %d cents = confirmed %d cents; %d orders off)
        stock conserved         %s (%d products unbalanced, %d off the confirmed units)
        no double charge        %s (%d)
        dead letters            %d
        duplicates absorbed     %d
        result                  %s
        """,
        placed,
        confirmed,
        declined,
        outOfStock,
        pending,
        unexpectedOutcomes,
        yes(moneyConserved()),
        netChargedCents,
        confirmedAmountCents,
        moneyMismatches,
        yes(stockConserved()),
        unbalancedProducts,
        stockMismatches,
        yes(noDoubleCharge()),
        doubleCharges,
        deadLetters,
        duplicatesAbsorbed,
        holds() ? "OK" : "FAILED");
  }

  /** One JSON object, snake_case keys. */
  public String toJson() {
    return String.format(
        Locale.ROOT,
        "{\"placed\": %d, \"confirmed\": %d, \"declined\": %d, \"out_of_stock\": %d,"
            + " \"pending\": %d, \"unexpected_outcomes\": %d, \"confirmed_amount_cents\": %d,"
            + " \"net_charged_cents\": %d, \"money_conserved\": %s, \"stock_conserved\": %s,"
            + " \"double_charges\": %d, \"dead_letters\": %d, \"duplicates_absorbed\": %d,"
            + " \"ok\": %s}",
        placed,
        confirmed,
        declined,
        outOfStock,
        pending,
        unexpectedOutcomes,
        confirmedAmountCents,
        netChargedCents,
        moneyConserved(),
        stockConserved(),
        doubleCharges,
        deadLetters,
        duplicatesAbsorbed,
        holds());
  }

  private static String yes(boolean b) {
    return b ? "yes" : "NO";
  }
}
