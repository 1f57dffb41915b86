package io.tandem.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import org.junit.jupiter.api.Test;

class SubjectRouterTest {
  private static Event event(String type, String id) {
    return NatsTestSupport.event(type, id, 1);
  }

  @Test
  void theDefaultGivesEachAggregateItsOwnSubject() {
    SubjectRouter router = SubjectRouter.byAggregate();

    assertThat(router.subjectFor(event("Order", "order-42"))).isEqualTo("tandem.order.order-42");
    assertThat(router.subjectFor(event("Stock Item", "sku_9")))
        .isEqualTo("tandem.stock-item.sku_9");
    assertThat(router.subjectFor(event("Ordre.Été", "a"))).isEqualTo("tandem.ordre--t-.a");
  }

  @Test
  void aggregateIdsAreEncodedAsOneTokenWithoutWildcardsOrSpaces() {
    SubjectRouter router = SubjectRouter.byAggregate("shop.");

    assertThat(router.subjectFor(event("Order", "eu.42 b"))).isEqualTo("shop.order.eu%2E42%20b");
    assertThat(router.subjectFor(event("Order", "a*b>c"))).isEqualTo("shop.order.a%2Ab%3Ec");
    assertThat(router.subjectFor(event("Order", "100%"))).isEqualTo("shop.order.100%25");
    assertThat(router.subjectFor(event("Order", "Köln 1"))).isEqualTo("shop.order.K%C3%B6ln%201");
    assertThat(SubjectRouter.token("tab\there")).isEqualTo("tab%09here");
    assertThat(router.subjectFor(event("Order", ">"))).isEqualTo("shop.order.%3E");
  }

  @Test
  void theTokenEncodingIsReversibleSoDifferentIdsNeverShareASubject() {
    assertThat(SubjectRouter.token("a.b")).isNotEqualTo(SubjectRouter.token("a_b"));
    assertThat(SubjectRouter.token("a.b")).isNotEqualTo(SubjectRouter.token("a%2Eb"));
    assertThat(SubjectRouter.token("plain-ID_42:x")).isEqualTo("plain-ID_42:x");
  }

  @Test
  void prefixesAndFixedSubjectsAreValidated() {
    assertThat(SubjectRouter.byAggregate("").subjectFor(event("Order", "o"))).isEqualTo("order.o");
    assertThatThrownBy(() -> SubjectRouter.byAggregate("shop"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix 'shop' must end with '.'");
    assertThatThrownBy(() -> SubjectRouter.byAggregate("shop..orders."))
        .hasMessageContaining("empty token");
    assertThatThrownBy(() -> SubjectRouter.byAggregate("*.")).hasMessageContaining("wildcard");
    assertThatThrownBy(() -> SubjectRouter.byAggregate(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("prefix");
    assertThat(SubjectRouter.fixed("audit.events").subjectFor(event("Order", "o")))
        .isEqualTo("audit.events");
    assertThatThrownBy(() -> SubjectRouter.fixed("audit events"))
        .hasMessageContaining("subject 'audit events' contains a space");
    assertThatThrownBy(() -> SubjectRouter.fixed("audit.>")).hasMessageContaining("wildcard");
    assertThatThrownBy(() -> SubjectRouter.fixed("")).hasMessageContaining("must not be empty");
  }
}
