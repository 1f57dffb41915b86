package io.tandem.examples.choreography;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The invariants catch each kind of broken outcome; pure computation, no servers. */
class ChoreographyInvariantsTest {
  private static final PlacedOrder PAID =
      new PlacedOrder("o1", "checkout-o1", new OrderRequest("a", "widget", 2, 1_000, 0));
  private static final PlacedOrder DECLINED =
      new PlacedOrder(
          "o2",
          "checkout-o2",
          new OrderRequest("b", "widget", 1, OrderRequest.PAYMENT_LIMIT_CENTS + 1, 0));
  private static final PlacedOrder SOLD_OUT =
      new PlacedOrder(
          "o3", "checkout-o3", new OrderRequest("c", OrderRequest.SOLD_OUT_PRODUCT, 1, 500, 0));
  private static final List<PlacedOrder> ORDERS = List.of(PAID, DECLINED, SOLD_OUT);
  private static final Map<String, CheckoutOutcome> AS_EXPECTED =
      Map.of(
          "o1", CheckoutOutcome.CONFIRMED,
          "o2", CheckoutOutcome.DECLINED,
          "o3", CheckoutOutcome.OUT_OF_STOCK);
  private static final Map<String, Long> RESERVED =
      Map.of("widget", 2L, "gadget", 0L, OrderRequest.SOLD_OUT_PRODUCT, 0L);

  @Test
  void aCorrectRunHolds() {
    ChoreographyInvariants inv =
        ChoreographyInvariants.of(
            ORDERS, AS_EXPECTED, Map.of("o1", 1_000L, "o3", 0L), RESERVED, 0, 0, 0, 3);

    assertThat(inv.holds()).as(inv.toTable()).isTrue();
    assertThat(inv.confirmed()).isEqualTo(1);
    assertThat(inv.cancelled()).isEqualTo(2);
    assertThat(inv.toJson()).contains("\"ok\": true", "\"duplicates_absorbed\": 3");
    assertThat(inv.toTable()).contains("result                  OK");
  }

  @Test
  void aChargeNotRefundedBreaksMoneyConservation() {
    ChoreographyInvariants inv =
        ChoreographyInvariants.of(
            ORDERS, AS_EXPECTED, Map.of("o1", 1_000L, "o3", 500L), RESERVED, 0, 0, 0, 0);

    assertThat(inv.moneyMismatches()).isEqualTo(1);
    assertThat(inv.moneyConserved()).isFalse();
    assertThat(inv.holds()).isFalse();
    assertThat(inv.toTable()).contains("money conserved         NO", "FAILED");
  }

  @Test
  void unitsReservedForACancelledOrderBreakStockConservation() {
    ChoreographyInvariants inv =
        ChoreographyInvariants.of(
            ORDERS, AS_EXPECTED, Map.of("o1", 1_000L), Map.of("widget", 3L), 0, 0, 0, 0);

    assertThat(inv.stockMismatches()).isEqualTo(1);
    assertThat(inv.stockConserved()).isFalse();
  }

  @Test
  void anOutcomeTheDataDoesNotDemandIsCounted() {
    ChoreographyInvariants inv =
        ChoreographyInvariants.of(
            ORDERS,
            Map.of("o1", CheckoutOutcome.CONFIRMED, "o2", CheckoutOutcome.CONFIRMED),
            Map.of("o1", 1_000L, "o2", DECLINED.request().amountCents()),
            Map.of("widget", 3L),
            0,
            0,
            0,
            0);

    assertThat(inv.unexpectedOutcomes()).isEqualTo(1);
    assertThat(inv.pending()).isEqualTo(1);
    assertThat(inv.holds()).isFalse();
  }

  @Test
  void aDoubleChargeOrADeadLetterFails() {
    assertThat(
            ChoreographyInvariants.of(
                    ORDERS, AS_EXPECTED, Map.of("o1", 1_000L), RESERVED, 1, 0, 0, 0)
                .holds())
        .isFalse();
    assertThat(
            ChoreographyInvariants.of(
                    ORDERS, AS_EXPECTED, Map.of("o1", 1_000L), RESERVED, 0, 0, 1, 0)
                .holds())
        .isFalse();
  }
}
