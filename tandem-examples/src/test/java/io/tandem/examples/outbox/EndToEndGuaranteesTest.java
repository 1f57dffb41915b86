package io.tandem.examples.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The foundation's promises on real PostgreSQL and a real Kafka broker: no loss, no duplicate
 * publication without a crash, republication with the same event id after a crash, no duplicate
 * side effect, and no offset commit before the consumer's transaction committed.
 */
class EndToEndGuaranteesTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private IsolatedDatabase producerDb;
  private IsolatedDatabase consumerDb;
  private String topic;
  private KafkaTransport transport;

  @BeforeEach
  void setUp() throws SQLException {
    producerDb = TestInfrastructure.postgres().createDatabase("e2e_producer");
    consumerDb = TestInfrastructure.postgres().createDatabase("e2e_consumer");
    Migrations.migrate(producerDb.dataSource());
    Migrations.migrate(consumerDb.dataSource());
    execute(
        consumerDb.dataSource(),
        "CREATE TABLE effects (id bigserial PRIMARY KEY,"
            + " event_id uuid NOT NULL, aggregate_id text NOT NULL, version bigint NOT NULL)");
    topic = "e2e-" + UUID.randomUUID().toString().substring(0, 8);
    TestInfrastructure.kafka().createTopic(topic, 3);
    transport =
        KafkaTransport.builder()
            .bootstrapServers(TestInfrastructure.kafka().bootstrapServers())
            .source("/tests/e2e")
            .topicRouter(TopicRouter.fixed(topic))
            .build();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    transport.close();
    producerDb.close();
    consumerDb.close();
  }

  private <T extends AutoCloseable> T closing(T c) {
    closeables.add(c);
    return c;
  }

  private List<Event> appendEvents(int aggregates, int versions) {
    List<Event> events = new ArrayList<>();
    for (int v = 1; v <= versions; v++) {
      for (int a = 0; a < aggregates; a++) {
        events.add(
            Event.builder()
                .aggregate("Account", "acc-" + a, v)
                .eventType("Deposited")
                .payload("{\"amount\":" + (a + v) + "}")
                .build());
      }
    }
    Outbox outbox = Outbox.create();
    Transactions.inTransaction(
        producerDb.dataSource(),
        c -> {
          outbox.appendAll(c, events);
          return null;
        });
    return events;
  }

  private OutboxRelay relay(String id, FaultInjector faults) {
    return OutboxRelay.builder()
        .dataSource(producerDb.dataSource())
        .transport(transport)
        .relayId(id)
        .batchSize(40)
        .pollInterval(Duration.ofMillis(20))
        .publishTimeout(Duration.ofSeconds(3))
        .heartbeatInterval(Duration.ofMillis(500))
        .leaseDuration(Duration.ofSeconds(5))
        .faultInjector(faults)
        .build();
  }

  private List<ConsumerRecord<String, byte[]>> readTopic(int atLeast) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestInfrastructure.kafka().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= atLeast;
              });
      consumer.poll(Duration.ofMillis(500)).forEach(records::add); // anything beyond
    }
    return records;
  }

  private static String ceId(ConsumerRecord<String, byte[]> r) {
    Header h = r.headers().lastHeader("ce_id");
    return new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void twoRelaysPublishEveryCommittedEventExactlyOnceWhenNothingCrashes() throws Exception {
    List<Event> events = appendEvents(50, 6);
    OutboxRelay a = closing(relay("relay-a", FaultInjector.NONE));
    OutboxRelay b = closing(relay("relay-b", FaultInjector.NONE));
    a.start();
    b.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        producerDb.dataSource(),
                        "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL")
                    == 0);

    List<ConsumerRecord<String, byte[]>> records = readTopic(events.size());
    Map<String, Integer> perId = new HashMap<>();
    records.forEach(r -> perId.merge(ceId(r), 1, Integer::sum));
    assertThat(records).hasSize(events.size());
    assertThat(perId).hasSize(events.size()).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
    assertThat(perId.keySet())
        .containsExactlyInAnyOrderElementsOf(
            events.stream().map(e -> e.eventId().toString()).toList());
    assertThat(a.publishedCount() + b.publishedCount()).isEqualTo(events.size());
    assertThat(records).allSatisfy(r -> assertThat(r.key()).startsWith("acc-"));
  }

  @Test
  void aRelayKilledAfterTheAckRepublishesTheSameEventIdsAndTheInboxAppliesEachOnce()
      throws Exception {
    List<Event> events = appendEvents(20, 3);
    DataSource consumerDs = consumerDb.dataSource();
    InboxProcessor inbox =
        InboxProcessor.builder()
            .dataSource(consumerDs)
            .consumer("effects")
            .onAnyEventType(1, EndToEndGuaranteesTest::effect)
            .build();
    Map<UUID, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    ConsumerRunner consumer =
        closing(
            ConsumerRunner.builder()
                .source(
                    counting(
                        source("effects-" + topic), deliveries)) // every delivery, duplicates too
                .processor(inbox)
                .concurrency(3)
                .build());
    consumer.start();

    OutboxRelay doomed =
        closing(
            relay(
                "doomed",
                point -> {
                  if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
                    throw new FaultInjector.SimulatedCrash(point);
                  }
                }));
    doomed.start();
    await().atMost(Duration.ofSeconds(20)).until(doomed::hasCrashed);
    long stranded = 40; // the killed relay's first batch: acknowledged, never marked
    assertThat(
            count(
                producerDb.dataSource(),
                "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL"))
        .as("the killed relay's batch is acked but not marked")
        .isEqualTo(events.size());
    await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.size() == stranded);

    OutboxRelay successor = closing(relay("successor", FaultInjector.NONE));
    successor.start();
    await()
        .atMost(Duration.ofSeconds(40))
        .until(
            () ->
                inbox.appliedCount() == events.size()
                    && count(
                            producerDb.dataSource(),
                            "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL")
                        == 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> inbox.duplicateCount() >= stranded);

    assertThat(deliveries).hasSize(events.size());
    assertThat(deliveries.values().stream().filter(n -> n.get() >= 2).count())
        .as("every event of the killed relay's batch arrived twice, with the same event id")
        .isGreaterThanOrEqualTo(stranded);
    assertThat(count(consumerDs, "SELECT count(*) FROM effects")).isEqualTo(events.size());
    assertThat(count(consumerDs, "SELECT count(DISTINCT event_id) FROM effects"))
        .isEqualTo(events.size());
  }

  @Test
  void theConsumersOffsetIsNotCommittedWhileItsTransactionFails() throws Exception {
    List<Event> events = appendEvents(1, 5); // one aggregate: one partition, in order
    OutboxRelay relay = closing(relay("relay", FaultInjector.NONE));
    relay.start();
    UUID poisoned = events.get(2).eventId();
    AtomicInteger failuresLeft = new AtomicInteger(3);
    List<UUID> applied = new CopyOnWriteArrayList<>();
    String group = "offsets-" + topic;
    InboxProcessor inbox =
        InboxProcessor.builder()
            .dataSource(consumerDb.dataSource())
            .consumer("effects")
            .retryPolicy(
                io.tandem.core.RetryPolicy.builder()
                    .base(Duration.ofMillis(300))
                    .cap(Duration.ofMillis(300))
                    .maxAttempts(10)
                    .build())
            .onAnyEventType(
                1,
                (c, ev) -> {
                  effect(c, ev);
                  if (ev.eventId().equals(poisoned) && failuresLeft.getAndDecrement() > 0) {
                    throw new SQLException("side effect failed", "40001");
                  }
                })
            // After the commit, once per message (also in a batch), in the order applied.
            .afterCommit(
                (ev, outcome) -> {
                  if (outcome == Outcome.APPLIED) {
                    applied.add(ev.eventId());
                  }
                })
            .build();
    ConsumerRunner consumer =
        closing(ConsumerRunner.builder().source(source(group)).processor(inbox).build());
    consumer.start();

    long maxCommittedWhileFailing = -1;
    while (failuresLeft.get() > 0) {
      maxCommittedWhileFailing = Math.max(maxCommittedWhileFailing, committedOffset(group));
      assertThat(
              count(
                  consumerDb.dataSource(),
                  "SELECT count(*) FROM tandem_inbox WHERE event_id = '" + poisoned + "'"))
          .isZero();
      Thread.sleep(50); // sampling the committed offset while the handler fails
    }
    assertThat(maxCommittedWhileFailing)
        .as("the offset never moves past the record whose transaction failed")
        .isLessThanOrEqualTo(2);
    await().atMost(Duration.ofSeconds(20)).until(() -> applied.size() == 5);
    assertThat(applied).containsExactlyElementsOf(events.stream().map(Event::eventId).toList());
    await().atMost(Duration.ofSeconds(10)).until(() -> committedOffset(group) == 5);
    assertThat(count(consumerDb.dataSource(), "SELECT count(*) FROM effects")).isEqualTo(5);
  }

  private KafkaMessageSource source(String group) {
    return KafkaMessageSource.builder()
        .bootstrapServers(TestInfrastructure.kafka().bootstrapServers())
        .groupId(group)
        .topics(List.of(topic))
        .pollTimeout(Duration.ofMillis(100))
        .build();
  }

  /** {@code source}, counting every message it delivers (duplicates included) by event id. */
  private static MessageSource counting(MessageSource source, Map<UUID, AtomicInteger> deliveries) {
    return new MessageSource() {
      @Override
      public String transport() {
        return source.transport();
      }

      @Override
      public String describe() {
        return source.describe();
      }

      @Override
      public void start(MessageSink sink) {
        source.start(
            m -> {
              deliveries
                  .computeIfAbsent(m.decode().eventId(), k -> new AtomicInteger())
                  .incrementAndGet();
              return sink.accept(m);
            });
      }

      @Override
      public boolean isRunning() {
        return source.isRunning();
      }

      @Override
      public void close() {
        source.close();
      }
    };
  }

  private long committedOffset(String group) throws Exception {
    Properties p = new Properties();
    p.put(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestInfrastructure.kafka().bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      return offsets.values().stream()
          .filter(o -> o != null)
          .mapToLong(OffsetAndMetadata::offset)
          .sum();
    }
  }

  private static void effect(Connection c, Event e) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO effects (event_id, aggregate_id, version) VALUES (?, ?, ?)")) {
      ps.setObject(1, e.eventId());
      ps.setString(2, e.aggregateId());
      ps.setLong(3, e.aggregateVersion());
      ps.executeUpdate();
    }
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
