package io.tandem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import org.junit.jupiter.api.Test;

class TopicRouterTest {

  private static Event ofType(String aggregateType) {
    return KafkaTestSupport.event(aggregateType, "a-1", 1);
  }

  @Test
  void defaultRulePrefixesTheLowercasedAggregateType() {
    TopicRouter router = TopicRouter.byAggregateType();

    assertThat(router.topicFor(ofType("Order"))).isEqualTo("tandem.order");
    assertThat(router.topicFor(ofType("Stock Item/EU"))).isEqualTo("tandem.stock-item-eu");
    assertThat(router.topicFor(ofType("Zahlung_Ä.v2"))).isEqualTo("tandem.zahlung_-.v2");
  }

  @Test
  void customPrefixAndFixedTopic() {
    assertThat(TopicRouter.byAggregateType("shop.").topicFor(ofType("Order")))
        .isEqualTo("shop.order");
    assertThat(TopicRouter.byAggregateType("").topicFor(ofType("Order"))).isEqualTo("order");
    assertThat(TopicRouter.fixed("audit-events").topicFor(ofType("Order")))
        .isEqualTo("audit-events");
  }

  @Test
  void illegalNamesAreRefusedNamingTheParameter() {
    assertThatThrownBy(() -> TopicRouter.fixed("orders!"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topic 'orders!'")
        .hasMessageContaining("'.', '_' and '-'");
    assertThatThrownBy(() -> TopicRouter.fixed("")).hasMessageContaining("topic must not be empty");
    assertThatThrownBy(() -> TopicRouter.fixed("..")).hasMessageContaining("not a legal");
    assertThatThrownBy(() -> TopicRouter.fixed("x".repeat(250)))
        .hasMessageContaining("250 characters")
        .hasMessageContaining("249");
    assertThatThrownBy(() -> TopicRouter.byAggregateType("shop/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix 'shop/'");
    assertThat(TopicRouter.fixed("x".repeat(249)).topicFor(ofType("Order"))).hasSize(249);
  }

  @Test
  void aTooLongRoutedNameIsRefusedWhenRouting() {
    TopicRouter router = TopicRouter.byAggregateType("p".repeat(200) + ".");

    assertThatThrownBy(() -> router.topicFor(ofType("A".repeat(60))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 249");
  }
}
