package io.tandem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import org.junit.jupiter.api.Test;

class StreamRouterTest {
  private static Event event(String type) {
    return RedisTestSupport.event(type, "order-1", 1);
  }

  @Test
  void theDefaultGivesEachAggregateTypeItsOwnStream() {
    StreamRouter router = StreamRouter.byAggregateType();

    assertThat(router.streamFor(event("Order"))).isEqualTo("tandem:order");
    assertThat(router.streamFor(event("Stock Item"))).isEqualTo("tandem:stock-item");
    assertThat(router.streamFor(event("Billing.Invoice_v2")))
        .isEqualTo("tandem:billing.invoice_v2");
    assertThat(router.streamFor(event("Été:*"))).isEqualTo("tandem:-t---");
  }

  @Test
  void prefixesAndFixedKeysAreValidated() {
    assertThat(StreamRouter.byAggregateType("shop:").streamFor(event("Order")))
        .isEqualTo("shop:order");
    assertThat(StreamRouter.byAggregateType("").streamFor(event("Order"))).isEqualTo("order");
    assertThat(StreamRouter.fixed("audit").streamFor(event("Order"))).isEqualTo("audit");
    assertThatThrownBy(() -> StreamRouter.byAggregateType("shop :"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix 'shop :' contains whitespace");
    assertThatThrownBy(() -> StreamRouter.byAggregateType(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("prefix");
    assertThatThrownBy(() -> StreamRouter.fixed("")).hasMessageContaining("key must not be empty");
    assertThatThrownBy(() -> StreamRouter.fixed("a\nb")).hasMessageContaining("control character");
  }
}
