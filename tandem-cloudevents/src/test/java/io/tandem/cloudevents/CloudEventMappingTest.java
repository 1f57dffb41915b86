package io.tandem.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.types.Time;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
  void timeIsWrittenExactlyAsTheSdkWritesIt() {
    List<Instant> instants =
        new ArrayList<>(
            List.of(
                Instant.parse("2025-03-01T10:15:00Z"),
                Instant.parse("2025-03-01T10:15:37.100Z"),
                Instant.parse("2025-03-01T10:15:37.000001Z"),
                Instant.parse("2025-03-01T10:15:37.123456789Z"),
                Instant.parse("1970-01-01T00:00:00Z"),
                Instant.parse("1969-12-31T23:59:59.999999Z"),
                Instant.parse("2024-02-29T23:59:59Z"),
                Instant.parse("0001-01-01T00:00:00Z"),
                Instant.parse("9999-12-31T23:59:59.999999999Z"),
                Instant.parse("0000-06-01T12:00:00Z"),
                Instant.parse("+10000-01-01T00:00:00Z"),
                Instant.parse("-0001-01-01T00:00:00.5Z")));
    Random random = new Random(42);
    for (int i = 0; i < 100_000; i++) {
      long second = random.nextLong(-70_000_000_000L, 260_000_000_000L);
      int nanos =
          switch (i % 4) {
            case 0 -> 0;
            case 1 -> random.nextInt(1_000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1_000;
            default -> random.nextInt(1_000_000_000);
          };
      instants.add(Instant.ofEpochSecond(second, nanos));
    }
    for (Instant instant : instants) {
      assertThat(CloudEventMapping.writeTime(instant))
          .as("%s", instant)
          .isEqualTo(Time.writeTime(OffsetDateTime.ofInstant(instant, ZoneOffset.UTC)));
    }
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
