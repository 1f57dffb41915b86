package io.tandem.examples.choreography;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The deterministic failure rules and the settings' validation; no servers. */
class FailureMixTest {

  @Test
  void everyHundredOrdersHoldTheExactPercentages() {
    FailureMix mix = new FailureMix(10, 15, 20);
    for (int block = 0; block < 3; block++) {
      List<OrderRequest> requests = new ArrayList<>();
      for (int n = block * 100; n < block * 100 + 100; n++) {
        requests.add(mix.request(n));
      }
      assertThat(requests)
          .filteredOn(r -> r.expectedOutcome() == CheckoutOutcome.DECLINED)
          .hasSize(10);
      assertThat(requests)
          .filteredOn(r -> r.expectedOutcome() == CheckoutOutcome.OUT_OF_STOCK)
          .hasSize(15);
      assertThat(requests).filteredOn(r -> r.shippingFailures() > 0).hasSize(20);
      assertThat(requests)
          .filteredOn(r -> r.expectedOutcome() == CheckoutOutcome.CONFIRMED)
          .hasSize(75);
    }
  }

  @Test
  void theSameOrderNumberAlwaysGetsTheSameRequest() {
    assertThat(FailureMix.DEFAULT.request(41)).isEqualTo(FailureMix.DEFAULT.request(41));
    assertThat(FailureMix.NONE.request(7).expectedOutcome()).isEqualTo(CheckoutOutcome.CONFIRMED);
    assertThat(FailureMix.NONE.request(7).shippingFailures()).isZero();
  }

  @Test
  void outcomesFollowFromTheOrderData() {
    assertThat(
            new OrderRequest("a", "widget", 1, OrderRequest.PAYMENT_LIMIT_CENTS, 0)
                .expectedOutcome())
        .isEqualTo(CheckoutOutcome.CONFIRMED);
    assertThat(
            new OrderRequest("a", "widget", 1, OrderRequest.PAYMENT_LIMIT_CENTS + 1, 0)
                .expectedOutcome())
        .isEqualTo(CheckoutOutcome.DECLINED);
    assertThat(
            new OrderRequest(
                    "a", OrderRequest.SOLD_OUT_PRODUCT, 1, OrderRequest.PAYMENT_LIMIT_CENTS + 1, 0)
                .expectedOutcome())
        .as("payment comes first")
        .isEqualTo(CheckoutOutcome.DECLINED);
    assertThat(new OrderRequest("a", "teapot", 1, 100, 0).expectedOutcome())
        .isEqualTo(CheckoutOutcome.OUT_OF_STOCK);
    assertThat(new OrderRequest("a", "gadget", 1, 100, 3).expectedOutcome())
        .isEqualTo(CheckoutOutcome.CONFIRMED);
  }

  @Test
  void badValuesAreRefusedNamingTheParameter() {
    assertThatThrownBy(() -> new FailureMix(60, 30, 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 100");
    assertThatThrownBy(() -> new FailureMix(-1, 0, 0)).hasMessageContaining("declinedPercent");
    assertThatThrownBy(() -> new OrderRequest("", "widget", 1, 1, 0))
        .hasMessageContaining("customer");
    assertThatThrownBy(() -> new OrderRequest("a", "widget", 0, 1, 0))
        .hasMessageContaining("quantity");
    assertThatThrownBy(() -> new OrderRequest("a", "widget", 1, 0, 0))
        .hasMessageContaining("amountCents");
    assertThatThrownBy(
            () -> new OrderRequest("a", "widget", 1, 1, OrderRequest.MAX_SHIPPING_FAILURES + 1))
        .hasMessageContaining("shippingFailures");
    assertThatThrownBy(() -> ChoreographedCheckout.builder().pollInterval(Duration.ofMillis(1)))
        .hasMessageContaining("pollInterval");
    assertThatThrownBy(() -> ChoreographedCheckout.builder().concurrency(0))
        .hasMessageContaining("concurrency");
    assertThatThrownBy(() -> ChoreographedCheckout.builder().topicPrefix("Bad Prefix"))
        .hasMessageContaining("topicPrefix");
  }

  @Test
  void nothingRunsBeforeStart() {
    ChoreographedCheckout checkout = ChoreographedCheckout.builder().build();
    assertThatThrownBy(() -> checkout.placeOrder(FailureMix.NONE.request(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("start()");
    checkout.close();
    assertThatThrownBy(checkout::start).isInstanceOf(IllegalStateException.class);
  }
}
