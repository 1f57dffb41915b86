package io.tandem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.resps.StreamEntry;

class RedisCloudEventsCodecTest {
  private final RedisCloudEventsCodec codec =
      RedisCloudEventsCodec.create("/tandem/orders-service");
  private final Event event = RedisTestSupport.event("Order", "order-42", 7);

  private Map<String, String> altered(Consumer<Map<String, String>> change) {
    Map<String, String> fields = new LinkedHashMap<>(codec.encode(event));
    change.accept(fields);
    return fields;
  }

  @Test
  void encodesTheEnvelopeAsCeFieldsInAFixedOrderAndDecodesItBack() {
    Map<String, String> fields = codec.encode(event);

    assertThat(fields.keySet())
        .containsExactly(
            "ce_specversion",
            "ce_id",
            "ce_source",
            "ce_type",
            "ce_subject",
            "ce_time",
            "ce_partitionkey",
            "ce_sequence",
            "ce_aggregatetype",
            "ce_schemaversion",
            "ce_traceparent",
            "ce_tracestate",
            "ce_tenant",
            "ce_correlationid",
            "ce_origin",
            "datacontenttype",
            "data");
    assertThat(fields.get("ce_time")).isEqualTo("2025-03-01T10:15:37.123456Z");
    assertThat(fields.get("data")).isEqualTo(event.payload());
    assertThat(codec.decode(fields)).isEqualTo(event);
  }

  @Test
  void valuesAreStoredUnescaped() {
    Event unusual =
        event.toBuilder()
            .aggregate("Bestellung Ä", "Köln \"1\" 100%", 3)
            .headers(EventHeaders.builder().tenant("Zürich").build())
            .build();

    Map<String, String> fields = codec.encode(unusual);

    assertThat(fields.get("ce_subject")).isEqualTo("Köln \"1\" 100%");
    assertThat(fields.get("ce_tenant")).isEqualTo("Zürich");
    assertThat(codec.decode(fields)).isEqualTo(unusual);
  }

  @Test
  void fieldsWithoutTheEnvelopeAreRejectedNamingTheAttribute() {
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("ce_specversion"))))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("attribute 'specversion' is missing (field ce_specversion)");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("ce_id"))))
        .hasMessageContaining("attribute 'id' is missing (field ce_id)")
        .extracting(e -> ((InvalidMessageException) e).attribute())
        .isEqualTo("id");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("ce_type"))))
        .hasMessageContaining("attribute 'type' is missing (field ce_type)");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("ce_sequence"))))
        .hasMessageContaining("attribute 'sequence' is missing (field ce_sequence)");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("ce_aggregatetype"))))
        .hasMessageContaining("attribute 'aggregatetype' is missing");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("ce_subject"))))
        .hasMessageContaining("attribute 'subject' is missing");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("ce_time"))))
        .hasMessageContaining("attribute 'time' is missing");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.remove("data"))))
        .hasMessageContaining("attribute 'data' is missing (field data)");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.put("ce_time", "yesterday"))))
        .hasMessageContaining("attribute 'time' is invalid");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.put("ce_source", "::not a uri"))))
        .hasMessageContaining("attribute 'source' is invalid");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.put("ce_id", "42"))))
        .hasMessageContaining("attribute 'id' '42' is not a UUID");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.put("ce_schemaversion", "two"))))
        .hasMessageContaining("attribute 'schemaversion' 'two' is not a non-negative decimal");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.put("datacontenttype", "text/xml"))))
        .hasMessageContaining("attribute 'datacontenttype' is 'text/xml'");
    assertThatThrownBy(() -> codec.decode(altered(f -> f.put("data", "{broken"))))
        .hasMessageContaining("attribute 'data' is rejected")
        .hasCauseInstanceOf(InvalidEventException.class);
  }

  @Test
  void aStreamEntryIsNamedInTheError() {
    StreamEntry entry =
        new StreamEntry(new StreamEntryID(1717171717171L, 3), altered(f -> f.remove("ce_id")));

    assertThatThrownBy(() -> codec.decode(entry))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining(
            "invalid Redis message at stream entry 1717171717171-3: attribute 'id'")
        .extracting(e -> ((InvalidMessageException) e).location())
        .isEqualTo("at stream entry 1717171717171-3");
  }

  @Test
  void schemaVersionDefaultsToOneAndUnknownFieldsAreIgnored() {
    Map<String, String> fields =
        altered(
            f -> {
              f.remove("ce_schemaversion");
              f.put("producer", "legacy");
            });

    assertThat(codec.decode(fields).schemaVersion()).isEqualTo(1);
  }
}
