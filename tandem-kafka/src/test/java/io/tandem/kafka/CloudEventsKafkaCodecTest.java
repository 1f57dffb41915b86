package io.tandem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.kafka.KafkaMessageFactory;
import io.tandem.cloudevents.CloudEventMapping;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The codec alone: a produced record is turned into the record a consumer would receive. */
class CloudEventsKafkaCodecTest {
  private final CloudEventsKafkaCodec codec = CloudEventsKafkaCodec.create("/tandem/orders");
  private final Event event = KafkaTestSupport.event("Order", "order-7", 3);

  private static ConsumerRecord<String, byte[]> received(ProducerRecord<String, byte[]> sent) {
    return received(sent, h -> {});
  }

  private static ConsumerRecord<String, byte[]> received(
      ProducerRecord<String, byte[]> sent, Consumer<Headers> change) {
    Headers headers = new RecordHeaders(sent.headers().toArray());
    change.accept(headers);
    return new ConsumerRecord<>(
        sent.topic(),
        2,
        17L,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        sent.key(),
        sent.value(),
        headers,
        Optional.empty());
  }

  private static String header(ProducerRecord<String, byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void encodesBinaryModeAndDecodesTheSameEvent() {
    ProducerRecord<String, byte[]> record = codec.encode("tandem.order", event);

    assertThat(record.key()).isEqualTo("order-7");
    assertThat(header(record, "ce_specversion")).isEqualTo("1.0");
    assertThat(header(record, "ce_id")).isEqualTo(event.eventId().toString());
    assertThat(header(record, "ce_source")).isEqualTo("/tandem/orders");
    assertThat(header(record, "content-type")).isEqualTo("application/json");
    assertThat(header(record, "ce_sequence")).isEqualTo("3");
    assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo(event.payload());
    assertThat(codec.decode(received(record))).isEqualTo(event);
  }

  @Test
  void writesTheSameRecordAsTheCloudEventsSdksBinaryWriter() {
    Event withHeaders =
        Event.builder()
            .aggregate("Order", "order-7", 3)
            .eventType("OrderPlaced")
            .schemaVersion(2)
            .payload("{\"total\":\"12.50\"}")
            .headers(EventHeaders.builder().put("tenant", "acme").put("origin", "tests").build())
            .build();
    for (Event e : List.of(event, withHeaders)) {
      ProducerRecord<String, byte[]> ours = codec.encode("tandem.order", e);
      ProducerRecord<String, byte[]> sdks =
          KafkaMessageFactory.<String>createWriter("tandem.order", e.aggregateId())
              .writeBinary(CloudEventMapping.toCloudEvent(e, URI.create("/tandem/orders")));

      assertThat(ours.topic()).isEqualTo(sdks.topic());
      assertThat(ours.partition()).isEqualTo(sdks.partition());
      assertThat(ours.key()).isEqualTo(sdks.key());
      assertThat(ours.value()).isEqualTo(sdks.value());
      assertThat(headers(ours)).isEqualTo(headers(sdks)).hasSizeGreaterThanOrEqualTo(11);
      assertThat(codec.decode(received(ours))).isEqualTo(e);
    }
  }

  /** Each header as text, by name; fails on a name written twice. */
  private static Map<String, String> headers(ProducerRecord<String, byte[]> record) {
    Map<String, String> headers = new HashMap<>();
    for (Header h : record.headers()) {
      String before = headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
      assertThat(before).as("header %s written twice", h.key()).isNull();
    }
    return headers;
  }

  @Test
  void aMissingOrMalformedAttributeIsNamedWithTheRecordsPosition() {
    ProducerRecord<String, byte[]> record = codec.encode("tandem.order", event);

    assertThatThrownBy(() -> codec.decode(received(record, h -> h.remove("ce_id"))))
        .isInstanceOfSatisfying(
            InvalidMessageException.class,
            e -> {
              assertThat(e.attribute()).isEqualTo("id");
              assertThat(e.transport()).isEqualTo("Kafka");
              assertThat(e.location()).isEqualTo("at topic tandem.order partition 2 offset 17");
              assertThat(e.reason()).isEqualTo("is missing (header ce_id)");
            })
        .hasMessage(
            "invalid Kafka message at topic tandem.order partition 2 offset 17: attribute 'id' is"
                + " missing (header ce_id)");
    assertThatThrownBy(
            () ->
                codec.decode(
                    received(record, h -> h.remove("ce_id").add("ce_id", "42".getBytes()))))
        .hasMessageContaining("attribute 'id' '42' is not a UUID");
    assertThatThrownBy(() -> codec.decode(received(record, h -> h.remove("ce_sequence"))))
        .hasMessageContaining("attribute 'sequence' is missing (header ce_sequence)");
    assertThatThrownBy(
            () ->
                codec.decode(
                    received(
                        record, h -> h.remove("ce_sequence").add("ce_sequence", "x".getBytes()))))
        .hasMessageContaining("attribute 'sequence' 'x' is not a non-negative decimal");
    assertThatThrownBy(() -> codec.decode(received(record, h -> h.remove("ce_specversion"))))
        .hasMessageContaining("attribute 'specversion' is missing");
    assertThatThrownBy(() -> codec.decode(received(record, h -> h.remove("ce_subject"))))
        .hasMessageContaining("attribute 'subject' is missing");
  }

  @Test
  void aPayloadThatIsNotJsonFailsEventValidationWrapped() {
    ProducerRecord<String, byte[]> sent = codec.encode("tandem.order", event);
    ProducerRecord<String, byte[]> notJson =
        new ProducerRecord<>(sent.topic(), null, sent.key(), "{oops".getBytes(), sent.headers());

    assertThatThrownBy(() -> codec.decode(received(notJson)))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("attribute 'data' is rejected")
        .hasMessageContaining("not valid JSON")
        .hasCauseInstanceOf(InvalidEventException.class);
  }

  @Test
  void aRecordWithoutCloudEventHeadersIsInvalid() {
    ProducerRecord<String, byte[]> plain =
        new ProducerRecord<>("tandem.order", "k", "{\"a\":1}".getBytes());

    assertThatThrownBy(() -> codec.decode(received(plain)))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("not a binary-mode CloudEvent");
  }

  @Test
  void aHeaderNamedLikeAnAttributeIsRefusedBeforeItReachesTheOutbox() {
    assertThatThrownBy(() -> EventHeaders.builder().put("subject", "x"))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("key 'subject' is reserved");
  }

  @Test
  void sourceMustBeAUriReference() {
    assertThatThrownBy(() -> CloudEventsKafkaCodec.create(" "))
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(() -> CloudEventsKafkaCodec.create("not a uri"))
        .hasMessageContaining("source 'not a uri' is not a URI reference");
  }
}
