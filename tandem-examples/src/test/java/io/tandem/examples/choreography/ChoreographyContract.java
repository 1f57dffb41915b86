package io.tandem.examples.choreography;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tandem.examples.choreography.ChoreographedCheckout.Redelivery;
import io.tandem.saga.TrailEntry;
import io.tandem.testkit.TestInfrastructure;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The choreographed checkout end to end on real Kafka and real databases: one checkout of each kind
 * (confirmed, declined, out of stock, shipping retried) through four services that only know each
 * other's events. The subclasses choose the payment service's database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ChoreographyContract {
  private ChoreographedCheckout checkout;
  private PlacedOrder confirmed;
  private PlacedOrder declined;
  private PlacedOrder outOfStock;
  private PlacedOrder retried;

  /** Chooses the payment service's database. */
  abstract ChoreographedCheckoutBuilder paymentDatabase(ChoreographedCheckoutBuilder builder);

  abstract boolean paymentOnMariaDb();

  @BeforeAll
  void runOneCheckoutOfEachKind() {
    checkout =
        paymentDatabase(
                ChoreographedCheckout.builder()
                    .postgres(TestInfrastructure.postgres())
                    .kafka(TestInfrastructure.kafka())
                    .progress(System.out))
            .build();
    checkout.start();
    confirmed = checkout.placeOrder(new OrderRequest("ada", "widget", 2, 2_500, 0));
    declined =
        checkout.placeOrder(
            new OrderRequest("bob", "gadget", 1, OrderRequest.PAYMENT_LIMIT_CENTS + 1, 0));
    outOfStock =
        checkout.placeOrder(new OrderRequest("cy", OrderRequest.SOLD_OUT_PRODUCT, 1, 4_200, 0));
    retried = checkout.placeOrder(new OrderRequest("di", "gadget", 3, 9_900, 2));
    assertThat(checkout.awaitAllFinished(Duration.ofSeconds(90)))
        .as("every checkout finishes")
        .isTrue();
  }

  @AfterAll
  void stop() {
    if (checkout != null) {
      checkout.close();
    }
  }

  @Test
  void thePaymentServiceRunsOnTheChosenDatabase() {
    assertThat(checkout.paymentOnMariaDb()).isEqualTo(paymentOnMariaDb());
  }

  @Test
  void aPaidReservedAndShippedOrderIsConfirmed() {
    assertThat(checkout.outcome(confirmed.orderId())).isEqualTo(CheckoutOutcome.CONFIRMED);
    assertThat(checkout.trail(confirmed.correlationId()))
        .extracting(TrailEntry::service, TrailEntry::eventType)
        .containsExactly(
            tuple("order", "OrderCreated"),
            tuple("payment", "PaymentAuthorized"),
            tuple("inventory", "InventoryReserved"),
            tuple("shipping", "ShipmentRequested"),
            tuple("order", "OrderConfirmed"));
    assertThat(checkout.carrierAttempts(confirmed.orderId())).isEqualTo(1);
  }

  @Test
  void aDeclinedPaymentCancelsTheOrderWithoutTouchingStockOrShipping() {
    assertThat(checkout.outcome(declined.orderId())).isEqualTo(CheckoutOutcome.DECLINED);
    assertThat(checkout.trail(declined.correlationId()))
        .extracting(TrailEntry::service, TrailEntry::eventType)
        .containsExactly(
            tuple("order", "OrderCreated"),
            tuple("payment", "PaymentDeclined"),
            tuple("order", "OrderCancelled"));
    assertThat(checkout.carrierAttempts(declined.orderId())).isZero();
  }

  @Test
  void outOfStockRefundsThePaymentThenCancelsTheOrder() {
    assertThat(checkout.outcome(outOfStock.orderId())).isEqualTo(CheckoutOutcome.OUT_OF_STOCK);
    assertThat(checkout.trail(outOfStock.correlationId()))
        .extracting(TrailEntry::service, TrailEntry::eventType, TrailEntry::aggregateVersion)
        .containsExactly(
            tuple("order", "OrderCreated", 1L),
            tuple("payment", "PaymentAuthorized", 1L),
            tuple("inventory", "OutOfStock", 1L),
            tuple("payment", "PaymentRefunded", 2L),
            tuple("order", "OrderCancelled", 2L));
    assertThat(checkout.carrierAttempts(outOfStock.orderId())).isZero();
  }

  @Test
  void shippingIsRetriedInPlaceUntilTheCarrierAccepts() {
    assertThat(checkout.outcome(retried.orderId())).isEqualTo(CheckoutOutcome.CONFIRMED);
    assertThat(checkout.carrierAttempts(retried.orderId()))
        .as("two transient failures, then success")
        .isEqualTo(3);
    assertThat(checkout.trail(retried.correlationId()))
        .extracting(TrailEntry::eventType)
        .containsOnlyOnce("ShipmentRequested")
        .endsWith("OrderConfirmed");
  }

  @Test
  void theTrailFollowsOneCheckoutAcrossTheServicesInOrder() {
    List<TrailEntry> trail = checkout.trail(confirmed.correlationId());

    assertThat(trail).extracting(TrailEntry::aggregateId).containsOnly(confirmed.orderId());
    assertThat(trail).extracting(TrailEntry::occurredAt).isSorted();
    // Causal: each reaction occurred after its service's consumer recorded the event before it.
    for (int i = 1; i < trail.size(); i++) {
      TrailEntry cause = trail.get(i - 1);
      TrailEntry reaction = trail.get(i);
      TrailEntry.Consumption heard =
          cause.consumedBy().stream()
              .filter(c -> c.service().equals(reaction.service()))
              .findFirst()
              .orElseThrow(() -> new AssertionError(reaction.service() + " never heard " + cause));
      assertThat(reaction.occurredAt())
          .as(reaction.eventType())
          .isAfterOrEqualTo(heard.processedAt());
    }
    assertThat(trail).allSatisfy(e -> assertThat(e.published()).as(e.eventType()).isTrue());
    // Who recorded what: the consumer that reacts, and those that hear the topic and skip the type
    // (OrderConfirmed is published once the checkout has finished; payment may record it later).
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(checkout.trail(confirmed.correlationId()))
                    .extracting(
                        e ->
                            e.consumedBy().stream()
                                .map(TrailEntry.Consumption::consumer)
                                .sorted()
                                .toList())
                    .containsExactly(
                        List.of("payment"),
                        List.of("inventory", "order"),
                        List.of("payment", "shipping"),
                        List.of("order"),
                        List.of("payment")));
    assertThat(trail.get(0).consumedBy().get(0).service()).isEqualTo("payment");
    Set<UUID> others = new HashSet<>();
    for (PlacedOrder o : List.of(declined, outOfStock, retried)) {
      checkout.trail(o.correlationId()).forEach(e -> others.add(e.eventId()));
    }
    assertThat(trail).extracting(TrailEntry::eventId).doesNotContainAnyElementsOf(others);
    System.out.print(checkout.renderTrail(outOfStock.correlationId()));
    assertThat(checkout.renderTrail(confirmed.correlationId()))
        .startsWith("trail " + confirmed.correlationId() + ": 5 events")
        .contains("OrderCreated", "PaymentAuthorized", "InventoryReserved", "ShipmentRequested");
  }

  @Test
  void moneyAndStockAreConservedAndNothingIsChargedTwice() {
    ChoreographyInvariants inv = checkout.invariants();

    assertThat(inv.placed()).isEqualTo(4);
    assertThat(inv.confirmed()).isEqualTo(2);
    assertThat(inv.declined()).isEqualTo(1);
    assertThat(inv.outOfStock()).isEqualTo(1);
    assertThat(inv.pending()).isZero();
    assertThat(inv.unexpectedOutcomes()).isZero();
    assertThat(inv.confirmedAmountCents()).isEqualTo(2_500 + 9_900);
    assertThat(inv.netChargedCents()).isEqualTo(2_500 + 9_900);
    assertThat(inv.moneyConserved()).isTrue();
    assertThat(inv.stockConserved()).isTrue();
    assertThat(inv.noDoubleCharge()).isTrue();
    assertThat(inv.deadLetters()).isZero();
    assertThat(inv.holds()).as(inv.toTable()).isTrue();
  }

  @Test
  void redeliveringEveryMessageChangesNothing() throws SQLException {
    List<Long> outboxRows = outboxRows();
    ChoreographyInvariants before = checkout.invariants();
    List<List<UUID>> trails = new ArrayList<>();
    for (PlacedOrder o : List.of(confirmed, declined, outOfStock, retried)) {
      trails.add(checkout.trail(o.correlationId()).stream().map(TrailEntry::eventId).toList());
    }

    Redelivery redelivery = checkout.redeliverAll(Duration.ofSeconds(60));

    // 18 events: order hears 5 on payment and 2 on shipment, payment 8 on order and 3 on
    // reservation, inventory 5 on payment, shipping 3 on reservation (more if the relay repeated).
    assertThat(redelivery.delivered()).isGreaterThanOrEqualTo(26);
    assertThat(redelivery.duplicates()).isEqualTo(redelivery.delivered());
    assertThat(redelivery.applied()).isZero();
    assertThat(outboxRows()).as("no service wrote an event again").isEqualTo(outboxRows);
    ChoreographyInvariants after = checkout.invariants();
    assertThat(after.holds()).as(after.toTable()).isTrue();
    assertThat(after.netChargedCents()).isEqualTo(before.netChargedCents());
    assertThat(after.duplicatesAbsorbed())
        .isGreaterThanOrEqualTo(before.duplicatesAbsorbed() + redelivery.duplicates());
    List<List<UUID>> trailsAfter = new ArrayList<>();
    for (PlacedOrder o : List.of(confirmed, declined, outOfStock, retried)) {
      trailsAfter.add(checkout.trail(o.correlationId()).stream().map(TrailEntry::eventId).toList());
    }
    assertThat(trailsAfter).isEqualTo(trails);
  }

  private List<Long> outboxRows() throws SQLException {
    List<Long> rows = new ArrayList<>();
    for (String service : checkout.services()) {
      rows.add(Sql.number(checkout.database(service), "SELECT count(*) FROM tandem_outbox"));
    }
    return rows;
  }
}
