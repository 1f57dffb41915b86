package io.tandem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.impl.LongStringHelper;
import io.tandem.core.Event;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The codec alone: an encoded message is turned into what a consumer receives (header strings
 * arrive as {@link com.rabbitmq.client.LongString}) and decoded.
 */
class RabbitCloudEventsCodecTest {
  private final RabbitCloudEventsCodec codec = RabbitCloudEventsCodec.create("/tandem/orders");
  private final Event event = RabbitTestSupport.event("Order", "order-7", 3);
  private final RabbitMessage message = codec.encode("tandem.order", event);
  private final Envelope envelope = new Envelope(17, false, "tandem.order", "order-7");

  private static AMQP.BasicProperties received(
      AMQP.BasicProperties sent, Consumer<Map<String, Object>> change) {
    Map<String, Object> headers = new LinkedHashMap<>();
    sent.getHeaders().forEach((k, v) -> headers.put(k, LongStringHelper.asLongString((String) v)));
    change.accept(headers);
    return sent.builder().headers(headers).build();
  }

  private Event decodeChanged(Consumer<Map<String, Object>> change) {
    return codec.decode(envelope, received(message.properties(), change), message.body());
  }

  @Test
  void encodesBinaryModeWithTheAmqpBindingsHeaderNames() {
    AMQP.BasicProperties p = message.properties();

    assertThat(message.exchange()).isEqualTo("tandem.order");
    assertThat(message.routingKey()).isEqualTo("order-7");
    assertThat(p.getMessageId()).isEqualTo(event.eventId().toString());
    assertThat(p.getDeliveryMode()).isEqualTo(2);
    assertThat(p.getContentType()).isEqualTo("application/json");
    assertThat(p.getTimestamp()).isEqualTo(Date.from(event.occurredAt()));
    assertThat(p.getHeaders())
        .containsEntry("cloudEvents_specversion", "1.0")
        .containsEntry("cloudEvents_id", event.eventId().toString())
        .containsEntry("cloudEvents_source", "/tandem/orders")
        .containsEntry("cloudEvents_type", "OrderPlaced")
        .containsEntry("cloudEvents_subject", "order-7")
        .containsEntry("cloudEvents_time", "2025-03-01T10:15:33.123456Z")
        .containsEntry("cloudEvents_partitionkey", "order-7")
        .containsEntry("cloudEvents_sequence", "3")
        .containsEntry("cloudEvents_aggregatetype", "Order")
        .containsEntry("cloudEvents_schemaversion", "2")
        .containsEntry("cloudEvents_traceparent", RabbitTestSupport.TRACEPARENT)
        .containsEntry("cloudEvents_tenant", "acme")
        .containsEntry("cloudEvents_tracestate", "vendor=abc")
        .containsEntry("cloudEvents_correlationid", "checkout-order-7")
        .containsEntry("cloudEvents_origin", "tests")
        .doesNotContainKey("cloudEvents_datacontenttype")
        .hasSize(15);
    assertThat(new String(message.body(), StandardCharsets.UTF_8)).isEqualTo(event.payload());
    assertThat(message.bodySize()).isEqualTo(message.body().length);
    assertThatThrownBy(() -> p.getHeaders().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void decodesWhatAConsumerReceivesIntoTheSameEvent() {
    AMQP.BasicProperties props = received(message.properties(), h -> {});

    assertThat(codec.decode(envelope, props, message.body())).isEqualTo(event);
    assertThat(codec.decode(new GetResponse(envelope, props, message.body(), 0))).isEqualTo(event);
    assertThat(codec.decode(new Delivery(envelope, props, message.body()))).isEqualTo(event);
    assertThat(codec.decode(null, message.properties(), message.body())).isEqualTo(event);
  }

  @Test
  void readsTheLegacyPrefixAndIgnoresHeadersWithoutAPrefix() {
    Event decoded =
        decodeChanged(
            h -> {
              Object type = h.remove("cloudEvents_type");
              h.put("cloudEvents:type", type);
              h.put("x-death", "[...]");
              h.put("cloudEvents:tenant", "ignored, the current prefix wins");
            });

    assertThat(decoded).isEqualTo(event);
  }

  @Test
  void aMissingOrMalformedAttributeIsNamedWithTheMessagesOrigin() {
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_id")))
        .isInstanceOfSatisfying(
            InvalidMessageException.class,
            e -> {
              assertThat(e.attribute()).isEqualTo("id");
              assertThat(e.transport()).isEqualTo("RabbitMQ");
              assertThat(e.location())
                  .isEqualTo("from exchange 'tandem.order' routing key 'order-7' delivery tag 17");
            })
        .hasMessage(
            "invalid RabbitMQ message from exchange 'tandem.order' routing key 'order-7' delivery tag 17:"
                + " attribute 'id' is missing (header cloudEvents_id)");
    assertThatThrownBy(() -> decodeChanged(h -> h.put("cloudEvents_id", "42")))
        .hasMessageEndingWith("attribute 'id' '42' is not a UUID (Tandem's event_id)");
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_specversion")))
        .hasMessageContaining("attribute 'specversion' is missing")
        .hasMessageContaining("not a binary-mode CloudEvent");
    assertThatThrownBy(() -> decodeChanged(h -> h.put("cloudEvents_specversion", "0.3")))
        .hasMessageContaining("attribute 'specversion' is '0.3', expected 1.0");
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_source")))
        .hasMessageContaining("attribute 'source' is missing (header cloudEvents_source)");
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_type")))
        .hasMessageContaining("attribute 'type' is missing");
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_subject")))
        .hasMessageContaining("attribute 'subject' is missing");
    assertThatThrownBy(() -> decodeChanged(h -> h.put("cloudEvents_subject", "")))
        .hasMessageContaining("attribute 'subject' is empty");
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_time")))
        .hasMessageContaining("attribute 'time' is missing");
    assertThatThrownBy(() -> decodeChanged(h -> h.put("cloudEvents_time", "yesterday")))
        .hasMessageContaining("attribute 'time' 'yesterday' is not an RFC 3339 timestamp");
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_sequence")))
        .hasMessageContaining("attribute 'sequence' is missing (header cloudEvents_sequence)");
    assertThatThrownBy(() -> decodeChanged(h -> h.put("cloudEvents_sequence", "-1")))
        .hasMessageContaining("attribute 'sequence' '-1' is not a non-negative decimal number");
    assertThatThrownBy(() -> decodeChanged(h -> h.remove("cloudEvents_aggregatetype")))
        .hasMessageContaining("attribute 'aggregatetype' is missing");
    assertThatThrownBy(() -> decodeChanged(h -> h.put("cloudEvents_schemaversion", "v2")))
        .hasMessageContaining("attribute 'schemaversion' 'v2' is not a non-negative decimal");
  }

  @Test
  void anAbsentSchemaVersionMeansOne() {
    assertThat(decodeChanged(h -> h.remove("cloudEvents_schemaversion")).schemaVersion())
        .isEqualTo(1);
  }

  @Test
  void theBodyMustBeJsonInUtf8() {
    AMQP.BasicProperties props = received(message.properties(), h -> {});

    assertThatThrownBy(() -> codec.decode(envelope, props, null))
        .hasMessageContaining("attribute 'data' is missing (the message has no body)");
    assertThatThrownBy(() -> codec.decode(envelope, props, new byte[] {(byte) 0xC3, 0x28}))
        .hasMessageContaining("attribute 'data' is not UTF-8 text");
    assertThatThrownBy(() -> codec.decode(envelope, props, "{oops".getBytes()))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("attribute 'data' is rejected")
        .hasMessageContaining("not valid JSON")
        .hasCauseInstanceOf(InvalidEventException.class);
    AMQP.BasicProperties text = props.builder().contentType("text/plain").build();
    assertThatThrownBy(() -> codec.decode(envelope, text, message.body()))
        .hasMessageContaining("attribute 'datacontenttype' is 'text/plain', expected");
    AMQP.BasicProperties vendorJson =
        props.builder().contentType("application/vnd.shop+json; charset=utf-8").build();
    assertThat(codec.decode(envelope, vendorJson, message.body())).isEqualTo(event);
  }

  @Test
  void anUnknownExtensionBecomesAHeaderAndAnIllegalOneIsNamed() {
    assertThat(decodeChanged(h -> h.put("cloudEvents_region", "eu")).headers().get("region"))
        .contains("eu");
    assertThatThrownBy(() -> decodeChanged(h -> h.put("cloudEvents_Region-Name", "eu")))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("attribute 'extensions' is rejected")
        .hasMessageContaining("Region-Name");
  }

  @Test
  void aMessageWithoutCloudEventHeadersIsInvalid() {
    AMQP.BasicProperties plain = new AMQP.BasicProperties.Builder().build();

    assertThatThrownBy(() -> codec.decode(null, plain, "{\"a\":1}".getBytes()))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessage(
            "invalid RabbitMQ message: attribute 'specversion' is missing (header"
                + " cloudEvents_specversion): not a binary-mode CloudEvent");
  }

  @Test
  void anAggregateIdTooLongForARoutingKeyIsRefusedAtEncoding() {
    Event longId =
        event.toBuilder().aggregate("Order", "é".repeat(200), 1).build(); // 400 bytes of UTF-8

    assertThatThrownBy(() -> codec.encode("tandem.order", longId))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("aggregate_id cannot be a RabbitMQ routing key")
        .hasMessageContaining("400 bytes");
    assertThatThrownBy(() -> codec.encode("", event))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exchange must not be empty");
  }

  @Test
  void sourceMustBeAUriReference() {
    assertThat(RabbitCloudEventsCodec.create().source()).isEqualTo("/tandem");
    assertThatThrownBy(() -> RabbitCloudEventsCodec.create(" "))
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(() -> RabbitCloudEventsCodec.create("not a uri"))
        .hasMessageContaining("source 'not a uri' is not a URI reference");
  }
}
