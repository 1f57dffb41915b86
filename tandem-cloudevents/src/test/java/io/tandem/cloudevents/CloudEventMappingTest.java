package io.tandem.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CloudEventMappingTest {
  static final URI SOURCE = URI.create("/tandem/orders-service");

  static Event event() {
    return Event.builder()
        .aggregate("Order", "order-42", 7)
        .eventType("OrderPlaced")
        .schemaVersion(2)
        .payload("{\"orderId\":\"order-42\",\"note\":\"é€\"}")
        .headers(EventHeaders.builder().tenant("acme").put("origin", "tests").build())
        .occurredAt(Instant.parse("2025-03-01T10:15:37.123456Z"))
        .build();
  }

  @Test
  void mapsTheEnvelopeOntoCloudEventsAttributesAndExtensions() {
    Event event = event();

    CloudEvent ce = CloudEventMapping.toCloudEvent(event, SOURCE);

    assertThat(ce.getSpecVersion().toString()).isEqualTo("1.0");
    assertThat(ce.getId()).isEqualTo(event.eventId().toString());
    assertThat(ce.getType()).isEqualTo("OrderPlaced");
    assertThat(ce.getSource()).isEqualTo(SOURCE);
    assertThat(ce.getSubject()).isEqualTo("order-42");
    assertThat(ce.getTime().toInstant()).isEqualTo(event.occurredAt());
    assertThat(ce.getDataContentType()).isEqualTo("application/json");
    assertThat(new String(ce.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo(event.payload());
    assertThat(ce.getExtensionNames())
        .containsExactlyInAnyOrder(
            "partitionkey", "sequence", "aggregatetype", "schemaversion", "tenant", "origin");
    assertThat(ce.getExtension("partitionkey")).isEqualTo("order-42");
    assertThat(ce.getExtension("sequence")).isEqualTo("7");
    assertThat(ce.getExtension("aggregatetype")).isEqualTo("Order");
    assertThat(ce.getExtension("schemaversion")).isEqualTo("2");
    assertThat(ce.getExtension("tenant")).isEqualTo("acme");
  }

  @Test
  void attributesAreTextInAFixedOrder() {
    Event event = event();

    Map<String, String> attributes = CloudEventMapping.attributes(event, SOURCE);

    assertThat(attributes.keySet())
        .containsExactly(
            "specversion",
            "id",
            "source",
            "type",
            "subject",
            "time",
            "partitionkey",
            "sequence",
            "aggregatetype",
            "schemaversion",
            "tenant",
            "origin");
    assertThat(attributes)
        .containsEntry("specversion", "1.0")
        .containsEntry("id", event.eventId().toString())
        .containsEntry("source", "/tandem/orders-service")
        .containsEntry("time", "2025-03-01T10:15:37.123456Z")
        .containsEntry("sequence", "7")
        .containsEntry("origin", "tests");
  }

  @Test
  void bothFormsDecodeBackToTheSameEvent() {
    Event event = event();
    CloudEventDecoder decoder = CloudEventDecoder.of(a -> "is missing", "is missing");

    assertThat(decoder.decode(CloudEventMapping.toCloudEvent(event, SOURCE))).isEqualTo(event);
    assertThat(
            decoder.decode(
                CloudEventMapping.attributes(event, SOURCE),
                "application/json",
                event.payload().getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(event);
  }

  @Test
  void sourceMustBeANonBlankUriReference() {
    assertThat(CloudEventMapping.source("/tandem/x")).isEqualTo(URI.create("/tandem/x"));
    assertThatThrownBy(() -> CloudEventMapping.source(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(() -> CloudEventMapping.source("a b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source 'a b' is not a URI reference");
  }
}
