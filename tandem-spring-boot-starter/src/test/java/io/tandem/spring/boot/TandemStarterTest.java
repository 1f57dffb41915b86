package io.tandem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.outbox.OutboxStatus;
import io.tandem.spring.ConsumerRunnerLifecycle;
import io.tandem.spring.RelayLifecycle;
import io.tandem.spring.TandemOutbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.IllegalTransactionStateException;

/**
 * One Boot application, started as a user starts it (auto-configuration found through the imports
 * file, Hikari on {@code spring.datasource.url}, Boot's managed versions) on a real PostgreSQL and
 * Kafka, shared by all tests of the class: context startup is the slow part.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TandemStarterTest {
  static IsolatedDatabase database;
  static ConfigurableApplicationContext context;
  static String topicPrefix;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    OrderService orderService(JdbcTemplate jdbc, TandemOutbox outbox) {
      return new OrderService(jdbc, outbox);
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    /** The consumer's side-effect table, created before the consumer starts. */
    @Bean
    TestSchema testSchema(JdbcTemplate jdbc) {
      jdbc.execute("CREATE TABLE IF NOT EXISTS boot_orders (id text PRIMARY KEY)");
      jdbc.execute("CREATE TABLE IF NOT EXISTS boot_applied (event_id uuid, applied_at text)");
      return new TestSchema();
    }

    /** A consumer of the relay's topic that applies each event through the inbox. */
    @Bean
    ConsumerRunnerLifecycle billingConsumer(
        DataSource dataSource, TestSchema schema, TandemMigrations migrations) {
      return new ConsumerRunnerLifecycle(
          () ->
              ConsumerRunner.builder()
                  .source(
                      KafkaMessageSource.builder()
                          .bootstrapServers(TestInfrastructure.kafka().bootstrapServers())
                          .groupId("billing-" + topicPrefix)
                          .topics(List.of(topicPrefix + "order"))
                          .build())
                  .processor(
                      InboxProcessor.builder()
                          .dataSource(dataSource)
                          .consumer("billing")
                          .on(
                              "OrderPlaced",
                              2,
                              (connection, event) -> {
                                try (PreparedStatement ps =
                                    connection.prepareStatement(
                                        "INSERT INTO boot_applied (event_id) VALUES (?)")) {
                                  ps.setObject(1, event.eventId());
                                  ps.executeUpdate();
                                }
                              })
                          .build())
                  .build());
    }
  }

  record TestSchema() {}

  @BeforeAll
  static void start() {
    database = TestInfrastructure.postgres().createDatabase("boot4_starter_test");
    topicPrefix = "boot4-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    String bootstrap = TestInfrastructure.kafka().bootstrapServers();
    TestInfrastructure.kafka().createTopic(topicPrefix + "order", 3);
    context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.application.name=boot4-test",
                "tandem.kafka.bootstrap-servers=" + bootstrap,
                "tandem.kafka.topic-prefix=" + topicPrefix,
                "tandem.health.max-oldest-pending-age=1s",
                "tandem.metrics.refresh-interval=200ms",
                "tandem.relay.poll-interval=200ms")
            .run();
  }

  @AfterAll
  static void stop() {
    // (the last test closes the context; this is for a run that ends early)
    if (context != null) {
      context.close();
    }
    if (database != null) {
      database.close();
    }
  }

  static JdbcTemplate jdbc() {
    return context.getBean(JdbcTemplate.class);
  }

  static long outboxRows(Event e) {
    return jdbc()
        .queryForObject(
            "SELECT count(*) FROM tandem_outbox WHERE event_id = ?", Long.class, e.eventId());
  }

  static Event newEvent() {
    return TestEvents.event("Order", UUID.randomUUID().toString(), 1);
  }

  @Test
  void anExceptionInTheTransactionalMethodLeavesNoOutboxRowAndNoBusinessRow() {
    Event e = newEvent();
    OrderService orders = context.getBean(OrderService.class);

    assertThatThrownBy(() -> orders.place(e.aggregateId(), e, true))
        .hasMessageContaining("payment declined");

    assertThat(outboxRows(e)).isZero();
    assertThat(
            jdbc()
                .queryForObject(
                    "SELECT count(*) FROM boot_orders WHERE id = ?", Long.class, e.aggregateId()))
        .isZero();
  }

  @Test
  void aCommittedEventIsPublishedByTheManagedRelayAndAppliedOnceByTheManagedConsumer()
      throws Exception {
    Event e = newEvent();
    context.getBean(OrderService.class).place(e.aggregateId(), e, false);
    assertThat(outboxRows(e)).isOne();

    List<String> ids = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        partitions.add(new TopicPartition(topicPrefix + "order", p));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  Header id = r.headers().lastHeader("ce_id");
                  ids.add(id == null ? null : new String(id.value(), StandardCharsets.UTF_8));
                }
                return ids.contains(e.eventId().toString());
              });
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                jdbc()
                    .queryForObject(
                        "SELECT published_at IS NOT NULL FROM tandem_outbox WHERE event_id = ?",
                        Boolean.class,
                        e.eventId()));
    assertThat(ids).containsOnlyOnce(e.eventId().toString());

    // The managed consumer applies it through the inbox, once.
    await().atMost(Duration.ofSeconds(30)).until(() -> applied(e) > 0);
    Thread.sleep(500); // room for a duplicate to show up
    assertThat(applied(e)).isOne();
  }

  static long applied(Event e) {
    return jdbc()
        .queryForObject(
            "SELECT count(*) FROM boot_applied WHERE event_id = ?", Long.class, e.eventId());
  }

  @Test
  void appendOutsideATransactionFailsNamingTheFixAndWritesNothing() {
    Event e = newEvent();
    OrderService orders = context.getBean(OrderService.class);

    assertThatThrownBy(() -> orders.appendWithoutTransaction(e))
        .isInstanceOf(IllegalTransactionStateException.class)
        .hasMessageContaining("annotate the calling method with @Transactional");
    assertThatThrownBy(() -> orders.appendReadOnly(e))
        .isInstanceOf(IllegalTransactionStateException.class)
        .hasMessageContaining("read-only");
    assertThat(outboxRows(e)).isZero();
  }

  @Test
  void healthTurnsDownWhenTheBacklogAgesPastTheThresholdAndUpWhenItDrains() throws Exception {
    RelayLifecycle relay = context.getBean(RelayLifecycle.class);
    TandemHealthIndicator health = context.getBean(TandemHealthIndicator.class);
    await().atMost(Duration.ofSeconds(30)).until(() -> status(health) == Status.UP);

    relay.stop();
    try {
      Event e = newEvent();
      context.getBean(OrderService.class).place(e.aggregateId(), e, false);
      Thread.sleep(1_300); // past tandem.health.max-oldest-pending-age=1s
      Health down = health.health(true);
      assertThat(down.getStatus()).isEqualTo(Status.DOWN);
      assertThat(down.getDetails()).containsKey("reason");
      assertThat((Long) down.getDetails().get("oldestPendingAgeMs")).isGreaterThan(1_000L);
    } finally {
      relay.start(); // a new relay: the lifecycle can restart
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> status(health) == Status.UP);
  }

  @Test
  void outboxGaugesAndRelayMetersGoToTheApplicationsMeterRegistry() {
    MeterRegistry registry = context.getBean(MeterRegistry.class);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> registry.find("tandem.outbox.pending").gauge() != null);
    assertThat(registry.find("tandem.outbox.oldest.pending.age").gauge()).isNotNull();
    assertThat(registry.getMeters().stream().map(m -> m.getId().getName()))
        .anyMatch(name -> name.startsWith("tandem.relay."));
  }

  /** Runs last: it closes the shared context. */
  @Test
  @Order(Integer.MAX_VALUE)
  void closingTheContextStopsTheRelayGracefullyAndLosesNothingInFlight() {
    OrderService orders = context.getBean(OrderService.class);
    RelayLifecycle relay = context.getBean(RelayLifecycle.class);
    relay.stop(); // a backlog of 200, so that the close finds a batch in flight
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Event e = newEvent();
      orders.place(e.aggregateId(), e, false);
      events.add(e);
    }
    relay.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                relay.relay().status().published() > 0
                    || !relay.relay().status().ownedPartitions().isEmpty());
    context.close(); // while the relay publishes the backlog
    context = null;

    assertThat(relay.isRunning()).isFalse();
    DataSource plain = database.dataSource();
    OutboxOperations ops = OutboxOperations.create(plain);
    assertThat(ops.status().partitions()).noneMatch(OutboxStatus.Partition::owned);
    JdbcTemplate jdbc = new JdbcTemplate(plain);
    List<String> markedPublished =
        jdbc.queryForList(
            "SELECT event_id::text FROM tandem_outbox WHERE published_at IS NOT NULL",
            String.class);

    // What the stopped relay left is published by the next one; nothing is missing.
    try (KafkaTransport kafka =
            KafkaTransport.builder()
                .bootstrapServers(TestInfrastructure.kafka().bootstrapServers())
                .source("/tandem/boot4-test")
                .topicRouter(TopicRouter.byAggregateType(topicPrefix))
                .build();
        OutboxRelay next = OutboxRelay.builder().dataSource(plain).transport(kafka).build()) {
      next.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> ops.status().pending() == 0);
    }
    List<String> onKafka = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        partitions.add(new TopicPartition(topicPrefix + "order", p));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<String> wanted = events.stream().map(e -> e.eventId().toString()).toList();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  Header id = r.headers().lastHeader("ce_id");
                  onKafka.add(new String(id.value(), StandardCharsets.UTF_8));
                }
                return onKafka.containsAll(wanted);
              });
    }
    // A row marked published before the stop was acknowledged by the broker before it.
    assertThat(onKafka).containsAll(markedPublished);
  }

  private static Status status(TandemHealthIndicator health) {
    return health.health(true).getStatus();
  }

  private static KafkaConsumer<String, byte[]> consumer() {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            TestInfrastructure.kafka().bootstrapServers(),
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class));
  }
}
