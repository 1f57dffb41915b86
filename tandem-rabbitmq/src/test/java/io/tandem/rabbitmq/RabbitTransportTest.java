package io.tandem.rabbitmq;

import static io.tandem.rabbitmq.RabbitTestSupport.TRACEPARENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.LongString;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The transport against a real RabbitMQ broker. */
class RabbitTransportTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private final RabbitCloudEventsCodec codec = RabbitCloudEventsCodec.create();
  private final RabbitTestSupport.Topology topology = new RabbitTestSupport.Topology();

  @AfterEach
  void deleteTopology() {
    topology.close();
  }

  private static String header(GetResponse message, String name) {
    Object value = message.getProps().getHeaders().get(name);
    assertThat(value).as("header %s", name).isInstanceOf(LongString.class);
    return value.toString();
  }

  private static Set<UUID> ids(List<GetResponse> messages) {
    return messages.stream()
        .map(m -> UUID.fromString(m.getProps().getMessageId()))
        .collect(Collectors.toSet());
  }

  @Test
  void publishesAConfirmedBatchAsBinaryCloudEventsRoutedByAggregate() {
    String exchange = topology.exchange("orders");
    String queue = topology.queue(exchange, "#");
    List<Event> events = RabbitTestSupport.events("Order", "order-", 7, 500);

    List<PublishOutcome> outcomes;
    try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed(exchange))) {
      outcomes = rabbit.publish(events, TIMEOUT);
    }

    assertThat(outcomes)
        .extracting(PublishOutcome::eventId)
        .containsExactlyElementsOf(events.stream().map(Event::eventId).toList());
    assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());

    List<GetResponse> messages = topology.read(queue, events.size());
    assertThat(messages).hasSize(events.size());
    Map<UUID, Event> byId =
        events.stream().collect(Collectors.toMap(Event::eventId, Function.identity()));
    for (GetResponse message : messages) {
      Event sent = byId.get(UUID.fromString(header(message, "cloudEvents_id")));
      assertThat(sent).isNotNull();
      assertThat(message.getEnvelope().getExchange()).isEqualTo(exchange);
      assertThat(message.getEnvelope().getRoutingKey()).isEqualTo(sent.aggregateId());
      assertThat(message.getProps().getMessageId()).isEqualTo(sent.eventId().toString());
      assertThat(message.getProps().getDeliveryMode()).isEqualTo(2);
      assertThat(message.getProps().getContentType()).isEqualTo("application/json");
      assertThat(message.getProps().getTimestamp().toInstant())
          .isEqualTo(sent.occurredAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
      assertThat(header(message, "cloudEvents_specversion")).isEqualTo("1.0");
      assertThat(header(message, "cloudEvents_source")).isEqualTo(RabbitTestSupport.SOURCE);
      assertThat(header(message, "cloudEvents_type")).isEqualTo("OrderPlaced");
      assertThat(header(message, "cloudEvents_subject")).isEqualTo(sent.aggregateId());
      assertThat(OffsetDateTime.parse(header(message, "cloudEvents_time")).toInstant())
          .isEqualTo(sent.occurredAt());
      assertThat(header(message, "cloudEvents_partitionkey")).isEqualTo(sent.aggregateId());
      assertThat(header(message, "cloudEvents_sequence"))
          .isEqualTo(Long.toString(sent.aggregateVersion()));
      assertThat(header(message, "cloudEvents_aggregatetype")).isEqualTo("Order");
      assertThat(header(message, "cloudEvents_schemaversion")).isEqualTo("2");
      assertThat(header(message, "cloudEvents_traceparent")).isEqualTo(TRACEPARENT);
      assertThat(header(message, "cloudEvents_tracestate")).isEqualTo("vendor=abc");
      assertThat(header(message, "cloudEvents_tenant")).isEqualTo("acme");
      assertThat(header(message, "cloudEvents_correlationid"))
          .isEqualTo("checkout-" + sent.aggregateId());
      assertThat(header(message, "cloudEvents_origin")).isEqualTo("tests");
      assertThat(message.getProps().getHeaders().keySet())
          .containsExactlyInAnyOrder(
              "cloudEvents_specversion",
              "cloudEvents_id",
              "cloudEvents_source",
              "cloudEvents_type",
              "cloudEvents_subject",
              "cloudEvents_time",
              "cloudEvents_partitionkey",
              "cloudEvents_sequence",
              "cloudEvents_aggregatetype",
              "cloudEvents_schemaversion",
              "cloudEvents_traceparent",
              "cloudEvents_tracestate",
              "cloudEvents_tenant",
              "cloudEvents_correlationid",
              "cloudEvents_origin");
      assertThat(new String(message.getBody(), StandardCharsets.UTF_8)).isEqualTo(sent.payload());
      assertThat(codec.decode(message)).isEqualTo(sent);
    }
    // Per routing key (aggregate): versions arrive in order, each once.
    Map<String, List<Long>> versions = new HashMap<>();
    for (GetResponse message : messages) {
      versions
          .computeIfAbsent(message.getEnvelope().getRoutingKey(), k -> new ArrayList<>())
          .add(Long.parseLong(header(message, "cloudEvents_sequence")));
    }
    Map<String, Long> sent =
        events.stream().collect(Collectors.groupingBy(Event::aggregateId, Collectors.counting()));
    assertThat(versions).hasSameSizeAs(sent);
    versions.forEach(
        (key, list) ->
            assertThat(list)
                .as(key)
                .isSorted()
                .doesNotHaveDuplicates()
                .hasSize(sent.get(key).intValue()));
  }

  @Test
  void anUnroutableMessageFailsPermanentlyWhileTheRestOfTheBatchIsAcknowledged() {
    String exchange = topology.exchange("partly-bound");
    String queue = topology.queue(exchange, "order-bound");
    List<Event> events = new ArrayList<>();
    for (int v = 1; v <= 20; v++) {
      events.add(RabbitTestSupport.event("Order", v % 2 == 0 ? "order-bound" : "order-lost", v));
    }

    List<PublishOutcome> outcomes;
    try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed(exchange))) {
      outcomes = rabbit.publish(events, TIMEOUT);
    }

    for (int i = 0; i < events.size(); i++) {
      PublishOutcome outcome = outcomes.get(i);
      if (events.get(i).aggregateId().equals("order-bound")) {
        assertThat(outcome.acknowledged()).as(outcome.toString()).isTrue();
      } else {
        assertThat(outcome.acknowledged()).isFalse();
        assertThat(outcome.failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
        assertThat(outcome.failure().retriable()).isFalse();
        assertThat(outcome.failure().getMessage())
            .contains(events.get(i).eventId().toString(), exchange, "312", "NO_ROUTE");
      }
    }
    List<GetResponse> delivered = topology.read(queue, 10);
    assertThat(delivered)
        .allSatisfy(m -> assertThat(m.getEnvelope().getRoutingKey()).isEqualTo("order-bound"));
    assertThat(topology.messageCount(queue)).isZero();
  }

  @Test
  void aMissingExchangeIsUnroutableAndFailsOnlyItsOwnEvents() {
    String orders = topology.exchange("orders");
    String queue = topology.queue(orders, "#");
    String missing = topology.exchangeName("missing");
    ExchangeRouter router = e -> e.aggregateType().equals("Order") ? orders : missing;
    Event ghost = RabbitTestSupport.event("Ghost", "ghost-1", 1);
    List<Event> first =
        List.of(
            RabbitTestSupport.event("Order", "order-1", 1),
            ghost,
            RabbitTestSupport.event("Order", "order-1", 2));

    try (RabbitTransport rabbit = RabbitTestSupport.transport(router)) {
      List<PublishOutcome> outcomes = rabbit.publish(first, TIMEOUT);

      assertThat(outcomes.get(0).acknowledged()).isTrue();
      assertThat(outcomes.get(2).acknowledged()).isTrue();
      assertThat(outcomes.get(1).failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
      assertThat(outcomes.get(1).failure().retriable()).isFalse();
      assertThat(outcomes.get(1).failure().getMessage()).contains("404", "'" + missing + "'");

      // The transport keeps working, and checks the exchange again once it was refused.
      assertThat(rabbit.publish(List.of(RabbitTestSupport.event("Order", "order-1", 3)), TIMEOUT))
          .allMatch(PublishOutcome::acknowledged);
      assertThat(rabbit.publish(List.of(ghost), TIMEOUT).get(0).failure().errorClass())
          .isEqualTo(ErrorClass.UNROUTABLE);
      createExchange(missing);
      String ghostQueue = topology.queue(missing, "#");
      assertThat(rabbit.publish(List.of(ghost), TIMEOUT)).allMatch(PublishOutcome::acknowledged);
      assertThat(topology.read(ghostQueue, 1)).hasSize(1);
    }
    assertThat(topology.read(queue, 3))
        .extracting(m -> m.getProps().getHeaders().get("cloudEvents_sequence").toString())
        .containsExactly("1", "2", "3");
  }

  @Test
  void anExchangeDeletedWhileInUseFailsItsEventsAndTheNextBatchSucceeds() {
    String doomed = topology.exchange("doomed");
    String orders = topology.exchange("orders");
    String queue = topology.queue(orders, "#");
    ExchangeRouter router = e -> e.aggregateType().equals("Order") ? orders : doomed;

    try (RabbitTransport rabbit = RabbitTestSupport.transport(router)) {
      assertThat(
              rabbit
                  .publish(List.of(RabbitTestSupport.event("Doomed", "d-1", 1)), TIMEOUT)
                  .get(0)
                  .failure()
                  .errorClass())
          .isEqualTo(ErrorClass.UNROUTABLE); // no queue bound: returned, but the exchange exists
      topology.deleteExchange(doomed);

      List<Event> batch = new ArrayList<>();
      batch.add(RabbitTestSupport.event("Order", "order-1", 1));
      batch.add(RabbitTestSupport.event("Doomed", "d-1", 2));
      for (int v = 2; v <= 50; v++) {
        batch.add(RabbitTestSupport.event("Order", "order-1", v));
      }
      List<PublishOutcome> outcomes = rabbit.publish(batch, TIMEOUT);

      assertThat(outcomes.get(1).failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
      List<UUID> acknowledged = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        if (i != 1) {
          PublishOutcome outcome = outcomes.get(i);
          assertThat(outcome.acknowledged() || outcome.failure().retriable())
              .as("%s", outcome)
              .isTrue();
          if (outcome.acknowledged()) {
            acknowledged.add(outcome.eventId());
          }
        }
      }
      List<Event> retry = RabbitTestSupport.events("Order", "order-2-", 3, 30);
      assertThat(rabbit.publish(retry, TIMEOUT)).allMatch(PublishOutcome::acknowledged);

      // Nothing was reported acknowledged that the broker does not hold.
      int expected = acknowledged.size() + retry.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> topology.messageCount(queue) >= expected);
      assertThat(ids(topology.read(queue, (int) topology.messageCount(queue))))
          .containsAll(acknowledged);
    }
  }

  @Test
  void anUnreachableBrokerGivesRetriableFailuresWithinTheTimeout() {
    List<Event> events = RabbitTestSupport.events("Order", "order-", 3, 20);
    long started = System.nanoTime();

    List<PublishOutcome> outcomes;
    try (RabbitTransport rabbit =
        RabbitTransport.builder()
            .uri("amqp://guest:guest@127.0.0.1:" + RabbitTestSupport.closedPort() + "/")
            .source(RabbitTestSupport.SOURCE)
            .build()) {
      outcomes = rabbit.publish(events, Duration.ofSeconds(2));
    }

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(2500));
    assertThat(outcomes).hasSize(events.size());
    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.acknowledged()).isFalse();
              assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
              assertThat(o.failure().retriable()).isTrue();
              assertThat(o.failure().getMessage())
                  .contains("guest:***@")
                  .doesNotContain("guest:guest");
            });
  }

  @Test
  void fourThreadsPublishConcurrentlyEachKeepingItsOrder() throws Exception {
    String exchange = topology.exchange("concurrent");
    String queue = topology.queue(exchange, "#");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed(exchange))) {
      List<Future<List<PublishOutcome>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        List<Event> batch = RabbitTestSupport.events("Order", "thread-" + t + "-order-", 5, 250);
        results.add(pool.submit(() -> rabbit.publish(batch, TIMEOUT)));
      }
      for (Future<List<PublishOutcome>> result : results) {
        assertThat(result.get()).hasSize(250).allMatch(PublishOutcome::acknowledged);
      }
    } finally {
      pool.shutdownNow();
    }
    List<GetResponse> messages = topology.read(queue, 1000);
    assertThat(ids(messages)).hasSize(1000);
    Map<String, List<Long>> versions = new HashMap<>();
    for (GetResponse message : messages) {
      versions
          .computeIfAbsent(message.getEnvelope().getRoutingKey(), k -> new ArrayList<>())
          .add(
              Long.parseLong(
                  message.getProps().getHeaders().get("cloudEvents_sequence").toString()));
    }
    assertThat(versions).hasSize(20);
    versions.forEach((key, list) -> assertThat(list).as(key).isSorted().hasSize(50));
  }

  @Test
  void eventsNotConfirmedByTheDeadlineTimeOutAndOnlyConfirmedOnesAreAcknowledged() {
    String exchange = topology.exchange("deadline");
    String queue = topology.queue(exchange, "#");
    try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed(exchange))) {
      assertThat(rabbit.publish(List.of(RabbitTestSupport.event("Order", "warm-up", 1)), TIMEOUT))
          .allMatch(PublishOutcome::acknowledged);

      // Deadlines from far too short to nearly enough, until one batch is partly confirmed.
      Set<UUID> acknowledged = new HashSet<>();
      int published = 1;
      boolean partlyConfirmed = false;
      for (int millis = 10; millis <= 1280 && !partlyConfirmed; millis *= 2) {
        List<Event> rushed = RabbitTestSupport.events("Order", "rushed-" + millis + "-", 10, 2000);
        List<PublishOutcome> outcomes = rabbit.publish(rushed, Duration.ofMillis(millis));
        published += rushed.size();

        assertThat(outcomes)
            .filteredOn(o -> !o.acknowledged())
            .allSatisfy(
                o -> {
                  assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.TIMEOUT);
                  assertThat(o.failure().retriable()).isTrue();
                });
        long confirmed = outcomes.stream().filter(PublishOutcome::acknowledged).count();
        partlyConfirmed = confirmed > 0 && confirmed < rushed.size();
        outcomes.stream()
            .filter(PublishOutcome::acknowledged)
            .forEach(o -> acknowledged.add(o.eventId()));
      }
      assertThat(partlyConfirmed).as("some batch was confirmed only in part").isTrue();

      // Channels left with unconfirmed messages are not reused until those settle.
      List<Event> next = RabbitTestSupport.events("Order", "next-", 10, 100);
      assertThat(rabbit.publish(next, TIMEOUT)).allMatch(PublishOutcome::acknowledged);

      Set<UUID> held = topology.messageIds(queue, acknowledged.size() + next.size() + 1);
      assertThat(held).containsAll(acknowledged);
      assertThat(held).containsAll(next.stream().map(Event::eventId).toList());
      assertThat(held.size()).isLessThanOrEqualTo(published + next.size());
    }
  }

  @Test
  void declareExchangesCreatesADurableTopicExchangeOnFirstUse() {
    String exchange = topology.exchangeName("declared");
    Event first = RabbitTestSupport.event("Order", "order-1", 1);
    Event second = RabbitTestSupport.event("Order", "order-1", 2);
    try (RabbitTransport rabbit =
        RabbitTransport.builder()
            .uri(RabbitTestSupport.uri())
            .source(RabbitTestSupport.SOURCE)
            .exchangeRouter(ExchangeRouter.fixed(exchange))
            .declareExchanges(true)
            .build()) {
      // Declared, but nothing is bound yet: the broker returns the message.
      assertThat(rabbit.publish(List.of(first), TIMEOUT).get(0).failure().errorClass())
          .isEqualTo(ErrorClass.UNROUTABLE);
      createExchange(exchange); // an equivalent declaration (durable topic) succeeds
      String queue = topology.queue(exchange, "order.#");
      String all = topology.queue(exchange, "#");

      assertThat(rabbit.publish(List.of(second), TIMEOUT)).allMatch(PublishOutcome::acknowledged);
      assertThat(topology.read(all, 1)).hasSize(1);
      assertThat(topology.messageCount(queue)).isZero(); // topic: "order.#" does not match order-1
    }
  }

  @Test
  void accessRefusedIsAPermanentAuthorizationFailure() {
    String orders = topology.exchange("orders");
    topology.queue(orders, "#");
    String reserved = "amq.tandem-" + UUID.randomUUID().toString().substring(0, 8);
    ExchangeRouter router = e -> e.aggregateType().equals("Order") ? orders : reserved;
    try (RabbitTransport rabbit =
        RabbitTransport.builder()
            .uri(RabbitTestSupport.uri())
            .source(RabbitTestSupport.SOURCE)
            .exchangeRouter(router)
            .declareExchanges(true)
            .build()) {
      List<PublishOutcome> outcomes =
          rabbit.publish(
              List.of(
                  RabbitTestSupport.event("Audit", "a-1", 1),
                  RabbitTestSupport.event("Order", "order-1", 1)),
              TIMEOUT);

      assertThat(outcomes.get(0).failure().errorClass()).isEqualTo(ErrorClass.AUTHORIZATION);
      assertThat(outcomes.get(0).failure().retriable()).isFalse();
      assertThat(outcomes.get(0).failure().getMessage()).contains("403", reserved);
      assertThat(outcomes.get(1).acknowledged()).as("%s", outcomes.get(1)).isTrue();
    }
  }

  @Test
  void aClosedTransportRefusesToPublish() {
    RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed("unused"));
    rabbit.close();
    rabbit.close(); // idempotent

    assertThatThrownBy(
            () ->
                rabbit.publish(
                    List.of(RabbitTestSupport.event("Order", "o", 1)), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void publishRefusesABadTimeoutAndAcceptsAnEmptyBatch() {
    try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed("unused"))) {
      assertThat(rabbit.name()).isEqualTo("rabbitmq");
      assertThat(rabbit.publish(List.of(), TIMEOUT)).isEmpty();
      assertThatThrownBy(() -> rabbit.publish(List.of(), Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("timeout must be a positive duration, was PT0S");
    }
  }

  private static void createExchange(String name) {
    try (var channel = RabbitTestSupport.admin().createChannel()) {
      channel.exchangeDeclare(name, com.rabbitmq.client.BuiltinExchangeType.TOPIC, true);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
