package io.tandem.kafka;

import static io.tandem.kafka.KafkaTestSupport.TRACEPARENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class KafkaTransportTest {
  private final CloudEventsKafkaCodec codec = CloudEventsKafkaCodec.create();

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    var header = record.headers().lastHeader(name);
    assertThat(header).as("header %s", name).isNotNull();
    return new String(header.value(), StandardCharsets.UTF_8);
  }

  @Test
  void publishesABatchAsBinaryCloudEventsKeyedByAggregate() {
    String prefix = KafkaTestSupport.unique("tx") + ".";
    String topic = prefix + "order";
    KafkaTestSupport.kafka().createTopic(topic, 3);
    List<Event> events = KafkaTestSupport.events("Order", 7, 700);

    List<PublishOutcome> outcomes;
    try (KafkaTransport kafka = KafkaTestSupport.transport(TopicRouter.byAggregateType(prefix))) {
      outcomes = kafka.publish(events, Duration.ofSeconds(30));
    }

    assertThat(outcomes)
        .extracting(PublishOutcome::eventId)
        .containsExactlyElementsOf(events.stream().map(Event::eventId).toList());
    assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());

    List<ConsumerRecord<String, byte[]>> records = KafkaTestSupport.readRaw(topic, events.size());
    assertThat(records).hasSize(events.size());
    Map<UUID, Event> byId =
        events.stream().collect(Collectors.toMap(Event::eventId, Function.identity()));
    for (ConsumerRecord<String, byte[]> record : records) {
      Event sent = byId.get(UUID.fromString(header(record, "ce_id")));
      assertThat(sent).isNotNull();
      assertThat(record.key()).isEqualTo(sent.aggregateId());
      assertThat(header(record, "ce_specversion")).isEqualTo("1.0");
      assertThat(header(record, "ce_type")).isEqualTo("OrderPlaced");
      assertThat(header(record, "ce_source")).isEqualTo("/tandem/orders-service");
      assertThat(header(record, "ce_subject")).isEqualTo(sent.aggregateId());
      assertThat(OffsetDateTime.parse(header(record, "ce_time")).toInstant())
          .isEqualTo(sent.occurredAt());
      assertThat(header(record, "content-type")).isEqualTo("application/json");
      assertThat(header(record, "ce_partitionkey")).isEqualTo(sent.aggregateId());
      assertThat(header(record, "ce_sequence")).isEqualTo(Long.toString(sent.aggregateVersion()));
      assertThat(header(record, "ce_aggregatetype")).isEqualTo("Order");
      assertThat(header(record, "ce_schemaversion")).isEqualTo("2");
      assertThat(header(record, "ce_traceparent")).isEqualTo(TRACEPARENT);
      assertThat(header(record, "ce_tracestate")).isEqualTo("vendor=abc");
      assertThat(header(record, "ce_tenant")).isEqualTo("acme");
      assertThat(header(record, "ce_correlationid")).isEqualTo("checkout-" + sent.aggregateId());
      assertThat(header(record, "ce_origin")).isEqualTo("tests");
      assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo(sent.payload());
      assertThat(codec.decode(record)).isEqualTo(sent);
    }
    // Per aggregate: one partition, versions in order.
    Map<String, List<ConsumerRecord<String, byte[]>>> byKey = new HashMap<>();
    records.stream()
        .sorted(Comparator.comparingLong(ConsumerRecord::offset))
        .forEach(r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
    byKey.forEach(
        (key, list) -> {
          assertThat(list)
              .extracting(ConsumerRecord::partition)
              .containsOnly(list.get(0).partition());
          assertThat(list)
              .extracting(r -> Long.parseLong(header(r, "ce_sequence")))
              .isSorted()
              .doesNotHaveDuplicates();
        });
  }

  @Test
  void concurrentPublishesShareOneProducer() throws Exception {
    String topic = KafkaTestSupport.newTopic("concurrent", 3);
    try (KafkaTransport kafka = KafkaTestSupport.transport(TopicRouter.fixed(topic))) {
      List<java.util.concurrent.Future<List<PublishOutcome>>> results = new ArrayList<>();
      var pool = java.util.concurrent.Executors.newFixedThreadPool(4);
      try {
        for (int t = 0; t < 4; t++) {
          List<Event> batch = KafkaTestSupport.events("Order" + t, 10, 250);
          results.add(pool.submit(() -> kafka.publish(batch, Duration.ofSeconds(30))));
        }
        for (var result : results) {
          assertThat(result.get()).hasSize(250).allMatch(PublishOutcome::acknowledged);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    assertThat(KafkaTestSupport.recordCount(topic)).isEqualTo(1000);
  }

  @Test
  void aRecordTooLargeIsAPermanentFailureAndNothingIsAcknowledged() {
    String topic = KafkaTestSupport.newTopic("too-large", 1);
    String big = "{\"blob\":\"" + "x".repeat(5_000) + "\"}";
    List<Event> events =
        List.of(1, 2, 3).stream()
            .map(
                v -> KafkaTestSupport.event("Order", "order-1", v).toBuilder().payload(big).build())
            .toList();

    List<PublishOutcome> outcomes;
    try (KafkaTransport kafka =
        KafkaTransport.builder()
            .bootstrapServers(KafkaTestSupport.kafka().bootstrapServers())
            .source("/tandem/orders-service")
            .topicRouter(TopicRouter.fixed(topic))
            .producerProperty("max.request.size", "2048")
            .build()) {
      outcomes = kafka.publish(events, Duration.ofSeconds(10));
    }

    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.acknowledged()).isFalse();
              assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.RECORD_TOO_LARGE);
              assertThat(o.failure().retriable()).isFalse();
              assertThat(o.failure().getMessage()).contains(o.eventId().toString(), topic);
            });
    assertThat(KafkaTestSupport.recordCount(topic)).isZero();
  }

  @Test
  void anUnreachableClusterGivesRetriableFailuresWithinTheTimeout() {
    List<Event> events = KafkaTestSupport.events("Order", 3, 20);
    long started = System.nanoTime();

    List<PublishOutcome> outcomes;
    try (KafkaTransport kafka =
        KafkaTransport.builder()
            .bootstrapServers("127.0.0.1:" + KafkaTestSupport.closedPort())
            .source("/tandem/orders-service")
            .producerProperty("max.block.ms", "1000")
            .producerProperty("request.timeout.ms", "500")
            .producerProperty("delivery.timeout.ms", "1500")
            .closeTimeout(Duration.ZERO)
            .build()) {
      outcomes = kafka.publish(events, Duration.ofSeconds(2));
    }

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(3500));
    assertThat(outcomes).hasSize(events.size());
    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.acknowledged()).isFalse();
              assertThat(o.failure().retriable()).as(o.failure().getMessage()).isTrue();
            });
  }

  @Test
  void anEventWithoutALegalTopicIsUnroutableAndOthersAreStillPublished() {
    String topic = KafkaTestSupport.newTopic("routing", 1);
    Event good = KafkaTestSupport.event("Order", "order-1", 1);
    Event bad = KafkaTestSupport.event("Refund", "order-1", 2);

    List<PublishOutcome> outcomes;
    try (KafkaTransport kafka =
        KafkaTestSupport.transport(e -> e.aggregateType().equals("Order") ? topic : "bad topic")) {
      outcomes = kafka.publish(List.of(good, bad), Duration.ofSeconds(10));
    }

    assertThat(outcomes.get(0).acknowledged()).isTrue();
    assertThat(outcomes.get(1).failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(outcomes.get(1).failure().getMessage()).contains("'bad topic'");
  }

  @Test
  void builderRefusesMissingOrUnsafeSettings() {
    assertThatThrownBy(() -> KafkaTransport.builder().source("/s").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bootstrapServers");
    assertThatThrownBy(() -> KafkaTransport.builder().bootstrapServers("localhost:9092").build())
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(
            () ->
                KafkaTransport.builder()
                    .bootstrapServers("localhost:9092")
                    .source("/s")
                    .producerProperty("acks", "1")
                    .build())
        .hasMessageContaining("producerProperty(acks) = '1' is not allowed");
    assertThatThrownBy(
            () ->
                KafkaTransport.builder()
                    .bootstrapServers("localhost:9092")
                    .source("/s")
                    .producerProperty("enable.idempotence", "false")
                    .build())
        .hasMessageContaining("producerProperty(enable.idempotence)");
  }

  @Test
  void aClosedTransportRefusesToPublish() {
    KafkaTransport kafka = KafkaTestSupport.transport(TopicRouter.fixed("unused"));
    kafka.close();

    assertThatThrownBy(
            () ->
                kafka.publish(
                    List.of(KafkaTestSupport.event("Order", "o", 1)), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
