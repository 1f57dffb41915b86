package io.tandem.cdc;

import static io.tandem.cdc.CdcTestSupport.append;
import static io.tandem.cdc.CdcTestSupport.count;
import static io.tandem.cdc.CdcTestSupport.header;
import static io.tandem.cdc.CdcTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.kafka.KafkaTransport;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The CDC relay end to end: PostgreSQL's WAL to Kafka. */
class CdcRelayTest {
  private IsolatedDatabase database;

  @AfterEach
  void dropDatabase() {
    CdcTestSupport.dropSlotsAndClose(database);
  }

  private CdcRelay.Builder relay(String slot, KafkaTransport transport) {
    return CdcRelay.builder()
        .jdbcUrl(database.jdbcUrl())
        .transport(transport)
        .slotName(slot)
        .relayId("cdc-test")
        .offsetFlushInterval(Duration.ofMillis(200))
        .drainInterval(Duration.ofMillis(200))
        .monitorInterval(Duration.ofMillis(500));
  }

  @Test
  void publishesEveryInsertInAggregateOrderAndMarksItPublished() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_delivery");
    String topic = CdcTestSupport.newTopic("cdc-delivery");
    String slot = CdcTestSupport.unique("delivery");
    List<Event> events = TestEvents.events("order", 7, 140);
    try (KafkaTransport transport = CdcTestSupport.transport(topic);
        CdcRelay relay = relay(slot, transport).build()) {
      relay.start();
      append(database.dataSource(), events);

      List<ConsumerRecord<String, byte[]>> records = read(topic, events.size());
      assertThat(records.stream().map(r -> header(r, "ce_id")).distinct())
          .containsExactlyInAnyOrderElementsOf(
              events.stream().map(e -> e.eventId().toString()).toList());
      Map<String, List<Long>> versions = new HashMap<>();
      records.stream()
          .sorted(
              (a, b) ->
                  a.partition() != b.partition()
                      ? Integer.compare(a.partition(), b.partition())
                      : Long.compare(a.offset(), b.offset()))
          .forEach(
              r ->
                  versions
                      .computeIfAbsent(r.key(), k -> new ArrayList<>())
                      .add(Long.parseLong(header(r, "ce_sequence"))));
      versions.forEach(
          (aggregate, seen) -> assertThat(seen).as(aggregate).isSorted().doesNotHaveDuplicates());
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(
                          count(
                              database.dataSource(),
                              "SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL"
                                  + " AND published_by = 'cdc-test'"))
                      .isEqualTo(events.size()));
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(
                          count(
                              database.dataSource(),
                              "SELECT count(*) FROM tandem_cdc_offset WHERE store_name = '"
                                  + slot
                                  + "'"))
                      .isPositive());
      assertThat(relay.status().published()).isEqualTo(events.size());
    }
  }

  @Test
  void aConsumerReceivesTheSameBytesFromEitherRelay() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_same_bytes");
    String cdcTopic = CdcTestSupport.newTopic("cdc-bytes");
    String pollingTopic = CdcTestSupport.newTopic("polling-bytes");
    String slot = CdcTestSupport.unique("bytes");
    List<Event> events = TestEvents.events("order", 3, 12);
    try (KafkaTransport cdcTransport = CdcTestSupport.transport(cdcTopic);
        KafkaTransport pollingTransport = CdcTestSupport.transport(pollingTopic)) {
      // The CDC relay publishes first; then the rows are marked unpublished again (a delivery
      // column) and the polling relay publishes the same rows. (The CDC relay does not publish a
      // streamed row already marked published, so the other order would send nothing.)
      try (CdcRelay relay = relay(slot, cdcTransport).build()) {
        relay.start();
        append(database.dataSource(), events);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    count(
                            database.dataSource(),
                            "SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL")
                        == events.size());
      }
      try (var c = database.dataSource().getConnection();
          var st = c.createStatement()) {
        st.executeUpdate("UPDATE tandem_outbox SET published_at = NULL, published_by = NULL");
      }
      OutboxRelay polling =
          OutboxRelay.builder()
              .dataSource(database.dataSource())
              .transport(pollingTransport)
              .relayId("polling")
              .build();
      try {
        while (polling.runOnce() > 0) {
          // until nothing is due
        }
      } finally {
        polling.close();
      }
      {
        List<ConsumerRecord<String, byte[]>> fromCdc = read(cdcTopic, events.size());
        List<ConsumerRecord<String, byte[]>> fromPolling = read(pollingTopic, events.size());
        assertThat(fromCdc).hasSize(events.size());
        assertThat(fromPolling).hasSize(events.size());
        Map<String, Message> cdc = byId(fromCdc);
        Map<String, Message> poll = byId(fromPolling);
        assertThat(cdc.keySet()).hasSize(events.size());
        assertThat(cdc).isEqualTo(poll);
      }
    }
  }

  @Test
  void doesNotSendAgainRowsPublishedBeforeTheStreamReachedThem() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_no_resend");
    String topic = CdcTestSupport.newTopic("cdc-no-resend");
    String slot = CdcTestSupport.unique("noresend");
    List<Event> early = TestEvents.events("order", 3, 12);
    Event late = TestEvents.event("order", "late-1", 1);
    try (KafkaTransport transport = CdcTestSupport.transport(topic);
        KafkaTransport elsewhere = CdcTestSupport.transport(CdcTestSupport.newTopic("polled"))) {
      // The slot exists before the inserts, so the stream carries them after another relay
      // published and marked them.
      try (CdcRelay first = relay(slot, transport).build()) {
        first.start();
      }
      append(database.dataSource(), early);
      OutboxRelay polling =
          OutboxRelay.builder()
              .dataSource(database.dataSource())
              .transport(elsewhere)
              .relayId("polling")
              .build();
      try {
        while (polling.runOnce() > 0) {
          // until nothing is due
        }
      } finally {
        polling.close();
      }
      try (CdcRelay relay = relay(slot, transport).build()) {
        relay.start();
        append(database.dataSource(), List.of(late));
        List<ConsumerRecord<String, byte[]>> records = read(topic, 1);
        assertThat(records.stream().map(r -> header(r, "ce_id")))
            .containsExactly(late.eventId().toString());
      }
    }
  }

  /** Key, value bytes and every header of one record, comparable. */
  static Map<String, Message> messagesById(List<ConsumerRecord<String, byte[]>> records) {
    return byId(records);
  }

  record Message(String key, String valueHex, List<String> headers) {}

  private static Map<String, Message> byId(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream()
        .collect(
            Collectors.toMap(
                r -> header(r, "ce_id"),
                r ->
                    new Message(
                        r.key(),
                        java.util.HexFormat.of().formatHex(r.value()),
                        java.util.Arrays.stream(r.headers().toArray())
                            .map(CdcRelayTest::headerText)
                            .toList())));
  }

  private static String headerText(Header h) {
    return h.key() + "=" + java.util.HexFormat.of().formatHex(h.value());
  }
}
