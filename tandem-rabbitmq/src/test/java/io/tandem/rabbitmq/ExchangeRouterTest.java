package io.tandem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import org.junit.jupiter.api.Test;

class ExchangeRouterTest {

  private static Event ofType(String aggregateType) {
    return RabbitTestSupport.event(aggregateType, "a-1", 1);
  }

  @Test
  void defaultRulePrefixesTheLowercasedAggregateTypeLikeKafkaTopics() {
    ExchangeRouter router = ExchangeRouter.byAggregateType();

    assertThat(router.exchangeFor(ofType("Order"))).isEqualTo("tandem.order");
    assertThat(router.exchangeFor(ofType("Stock Item/EU"))).isEqualTo("tandem.stock-item-eu");
    assertThat(router.exchangeFor(ofType("Zahlung_Ä.v2"))).isEqualTo("tandem.zahlung_-.v2");
  }

  @Test
  void customPrefixAndFixedExchange() {
    assertThat(ExchangeRouter.byAggregateType("shop.").exchangeFor(ofType("Order")))
        .isEqualTo("shop.order");
    assertThat(ExchangeRouter.byAggregateType("").exchangeFor(ofType("Order"))).isEqualTo("order");
    assertThat(ExchangeRouter.fixed("audit-events").exchangeFor(ofType("Order")))
        .isEqualTo("audit-events");
  }

  @Test
  void illegalNamesAreRefusedNamingTheParameter() {
    assertThatThrownBy(() -> ExchangeRouter.fixed(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exchange must not be empty")
        .hasMessageContaining("default exchange");
    assertThatThrownBy(() -> ExchangeRouter.fixed(null))
        .hasMessageContaining("exchange must not be empty");
    assertThatThrownBy(() -> ExchangeRouter.fixed("é".repeat(128)))
        .hasMessageContaining("256 bytes of UTF-8; AMQP allows at most 255");
    assertThatThrownBy(() -> ExchangeRouter.fixed("orders\n"))
        .hasMessageContaining("exchange 'orders?' has control characters");
    assertThatThrownBy(() -> ExchangeRouter.byAggregateType(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("prefix must not be null");
    assertThatThrownBy(() -> ExchangeRouter.byAggregateType("p".repeat(255)))
        .hasMessageContaining("leaves no room for the aggregate type");
    assertThat(ExchangeRouter.fixed("x".repeat(255)).exchangeFor(ofType("Order"))).hasSize(255);
  }

  @Test
  void aTooLongRoutedNameIsRefusedWhenRouting() {
    ExchangeRouter router = ExchangeRouter.byAggregateType("p".repeat(200) + ".");

    assertThatThrownBy(() -> router.exchangeFor(ofType("A".repeat(60))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("AMQP allows at most 255");
  }
}
