package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventTest {

  private static Event.Builder valid() {
    return Event.builder()
        .aggregate("Order", "order-1", 1)
        .eventType("OrderConfirmed")
        .payload("{\"orderId\":\"order-1\",\"total\":1250}");
  }

  @Test
  void buildsAnImmutableEnvelopeWithAVersion7Id() {
    Event e = valid().headers(EventHeaders.builder().tenant("acme").build()).build();
    assertThat(EventId.isVersion7(e.eventId())).isTrue();
    assertThat(e.aggregateType()).isEqualTo("Order");
    assertThat(e.aggregateId()).isEqualTo("order-1");
    assertThat(e.aggregateVersion()).isEqualTo(1);
    assertThat(e.schemaVersion()).isEqualTo(1);
    assertThat(e.headers().tenant()).contains("acme");
    assertThat(e.occurredAt()).isBeforeOrEqualTo(Instant.now());
  }

  @Test
  void theEventIdIsGeneratedOnceAndSurvivesRebuilds() {
    Event.Builder b = valid();
    Event first = b.build();
    Event second = b.build();
    assertThat(second.eventId()).isEqualTo(first.eventId());
    assertThat(first.toBuilder().build()).isEqualTo(first);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", " Order", "Ord\ter"})
  void rejectsABadAggregateType(String type) {
    assertThatThrownBy(() -> valid().aggregate(type, "order-1", 1).build())
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("aggregate_type")
        .extracting(ex -> ((InvalidEventException) ex).field())
        .isEqualTo("aggregate_type");
  }

  @Test
  void rejectsABlankAggregateIdAndEventType() {
    assertThatThrownBy(() -> valid().aggregate("Order", null, 1).build())
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("invalid event: aggregate_id must not be blank");
    assertThatThrownBy(() -> valid().eventType(" ").build())
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("invalid event: event_type must not be blank");
  }

  @Test
  void rejectsVersionsBelowOne() {
    assertThatThrownBy(() -> valid().aggregate("Order", "o", 0).build())
        .hasMessageContaining("aggregate_version must be at least 1, was 0");
    assertThatThrownBy(() -> valid().schemaVersion(0).build())
        .hasMessageContaining("schema_version must be at least 1, was 0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{", "not json", "{\"a\":1} trailing", "{'a':1}"})
  void rejectsAPayloadThatIsNotJson(String payload) {
    assertThatThrownBy(() -> valid().payload(payload).build())
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("payload is not valid JSON");
  }

  @Test
  void rejectsAPayloadOverTheConfiguredLimit() {
    String big = "{\"data\":\"" + "x".repeat(1024 * 1024) + "\"}";
    assertThatThrownBy(() -> valid().payload(big).build())
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("payload is 1048587 bytes, over the limit of 1048576 bytes");

    EventLimits small = EventLimits.builder().maxPayloadBytes(10).build();
    assertThatThrownBy(() -> valid().limits(small).payload("{\"k\":\"0123456789\"}").build())
        .hasMessageContaining("over the limit of 10 bytes");
    assertThat(valid().limits(small).payload("{}").build().payload()).isEqualTo("{}");
  }

  @Test
  void rejectsInvalidHeaders() {
    assertThatThrownBy(() -> EventHeaders.builder().put("Correlation-Id", "x"))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("headers key 'Correlation-Id' is not allowed");
    assertThatThrownBy(() -> EventHeaders.builder().put("sequence", "7"))
        .hasMessageContaining("headers key 'sequence' is reserved");
    assertThatThrownBy(() -> EventHeaders.builder().traceparent("abc"))
        .hasMessageContaining("is not W3C trace context");
    assertThat(
            EventHeaders.builder()
                .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .build()
                .traceparent())
        .isPresent();
  }

  @Test
  void headersRoundTripThroughTheirJsonForm() {
    EventHeaders h = EventHeaders.builder().tenant("acme").correlationId("c-1").build();
    assertThat(EventHeaders.fromJson(h.toJson())).isEqualTo(h);
    assertThat(EventHeaders.fromJson(null)).isEqualTo(EventHeaders.EMPTY);
    assertThatThrownBy(() -> EventHeaders.fromJson("[1]"))
        .isInstanceOf(InvalidEventException.class);
  }

  @Test
  void acceptsAGivenIdForEventsReadBack() {
    UUID id = EventId.next();
    assertThat(valid().eventId(id).build().eventId()).isEqualTo(id);
  }

  @Test
  void withHeadersKeepsTheEventAndChangesOnlyItsHeaders() {
    Event event = valid().build();
    EventHeaders traced =
        EventHeaders.builder()
            .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .build();
    Event withTrace = event.withHeaders(traced);
    assertThat(withTrace.headers()).isEqualTo(traced);
    assertThat(withTrace.toBuilder().headers(event.headers()).build()).isEqualTo(event);
    assertThat(withTrace.eventId()).isEqualTo(event.eventId());
  }

  @Test
  void withHeadersRefusesHeadersThatGrewOverTheLimit() {
    String big = "x".repeat(EventLimits.DEFAULTS.maxHeadersBytes());
    assertThatThrownBy(
            () -> valid().build().withHeaders(EventHeaders.builder().put("big", big).build()))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("over the limit");
  }
}
