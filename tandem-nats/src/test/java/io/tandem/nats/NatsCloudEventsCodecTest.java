package io.tandem.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class NatsCloudEventsCodecTest {
  private final NatsCloudEventsCodec codec = NatsCloudEventsCodec.create("/tandem/orders-service");
  private final Event event = NatsTestSupport.event("Order", "order-42", 7);

  /** The encoded event with {@code change} applied to a copy of its headers. */
  private Message altered(Consumer<Headers> change) {
    Message message = codec.encode("tandem.order.order-42", event);
    Headers headers = new Headers(message.getHeaders());
    change.accept(headers);
    return NatsMessage.builder()
        .subject(message.getSubject())
        .headers(headers)
        .data(message.getData())
        .build();
  }

  @Test
  void encodesTheEnvelopeAsCeHeadersAndDecodesItBack() {
    Message message = codec.encode("tandem.order.order-42", event);

    Headers headers = message.getHeaders();
    assertThat(headers.getFirst("Nats-Msg-Id")).isEqualTo(event.eventId().toString());
    assertThat(headers.getFirst("ce-id")).isEqualTo(event.eventId().toString());
    assertThat(headers.getFirst("ce-specversion")).isEqualTo("1.0");
    assertThat(headers.getFirst("ce-source")).isEqualTo("/tandem/orders-service");
    assertThat(headers.getFirst("ce-time")).isEqualTo("2025-03-01T10:15:37.123456Z");
    assertThat(headers.getFirst("ce-sequence")).isEqualTo("7");
    assertThat(headers.getFirst("content-type")).isEqualTo("application/json");
    assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo(event.payload());
    assertThat(codec.decode(message)).isEqualTo(event);
  }

  @Test
  void valuesOutsidePrintableAsciiArePercentEncodedAndDecoded() {
    Event unusual =
        event.toBuilder()
            .aggregate("Bestellung Ä", "Köln \"1\" 100%", 3)
            .eventType("Bestellung erfasst")
            .headers(EventHeaders.builder().tenant("Zürich").build())
            .build();

    Message message = codec.encode("tandem.x", unusual);

    assertThat(message.getHeaders().getFirst("ce-subject"))
        .isEqualTo("K%C3%B6ln%20%221%22%20100%25");
    assertThat(message.getHeaders().getFirst("ce-aggregatetype")).isEqualTo("Bestellung%20%C3%84");
    assertThat(message.getHeaders().getFirst("ce-type")).isEqualTo("Bestellung%20erfasst");
    assertThat(message.getHeaders().getFirst("ce-tenant")).isEqualTo("Z%C3%BCrich");
    assertThat(codec.decode(message)).isEqualTo(unusual);
  }

  @Test
  void headerNamesAreMatchedWithoutRegardToCase() {
    Message upper =
        altered(
            h -> {
              String id = h.getFirst("ce-id");
              h.remove("ce-id");
              h.put("CE-ID", id);
            });

    assertThat(codec.decode(upper)).isEqualTo(event);
  }

  @Test
  void aMessageWithoutTheEnvelopeIsRejectedNamingTheAttribute() {
    assertThatThrownBy(() -> codec.decode(altered(h -> h.remove("ce-specversion"))))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("on subject tandem.order.order-42")
        .hasMessageContaining("attribute 'specversion' is missing (header ce-specversion)");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.remove("ce-id"))))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("attribute 'id' is missing (header ce-id)")
        .extracting(e -> ((InvalidMessageException) e).attribute())
        .isEqualTo("id");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.remove("ce-sequence"))))
        .hasMessageContaining("attribute 'sequence' is missing (header ce-sequence)");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.remove("ce-aggregatetype"))))
        .hasMessageContaining("attribute 'aggregatetype' is missing");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.remove("ce-subject"))))
        .hasMessageContaining("attribute 'subject' is missing");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.remove("ce-time"))))
        .hasMessageContaining("attribute 'time' is missing");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.remove("ce-type"))))
        .hasMessageContaining("attribute 'type' is missing (header ce-type)");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.put("ce-time", "yesterday"))))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("attribute 'time' is invalid");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.put("ce-bad_name", "x"))))
        .hasMessageContaining("attribute 'extensions' is invalid");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.put("ce-id", "not-a-uuid"))))
        .hasMessageContaining("attribute 'id' 'not-a-uuid' is not a UUID");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.put("ce-sequence", "-1"))))
        .hasMessageContaining("attribute 'sequence' '-1' is not a non-negative decimal number");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.put("content-type", "text/plain"))))
        .hasMessageContaining("attribute 'datacontenttype' is 'text/plain'");
    assertThatThrownBy(() -> codec.decode(altered(h -> h.put("ce-tenant", "bad%zz"))))
        .hasMessageContaining("attribute 'tenant' is not percent-encoded UTF-8");
  }

  @Test
  void aMessageWithoutBodyOrWithAnInvalidEnvelopeIsRejected() {
    Message encoded = codec.encode("tandem.order.order-42", event);
    Message empty =
        NatsMessage.builder()
            .subject(encoded.getSubject())
            .headers(encoded.getHeaders())
            .data(new byte[0])
            .build();
    Message notJson =
        NatsMessage.builder()
            .subject(encoded.getSubject())
            .headers(encoded.getHeaders())
            .data("not json".getBytes(StandardCharsets.UTF_8))
            .build();

    assertThatThrownBy(() -> codec.decode(empty))
        .hasMessageContaining("attribute 'data' is missing (the message has no body)");
    assertThatThrownBy(() -> codec.decode(notJson))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("attribute 'data' is rejected")
        .hasCauseInstanceOf(InvalidEventException.class);
  }

  @Test
  void theSourceMustBeAUriReference() {
    assertThat(NatsCloudEventsCodec.create().source()).isEqualTo("/tandem");
    assertThatThrownBy(() -> NatsCloudEventsCodec.create(" "))
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(() -> NatsCloudEventsCodec.create("not a uri"))
        .hasMessageContaining("source 'not a uri' is not a URI reference");
  }
}
