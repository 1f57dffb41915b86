package io.tandem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.core.TandemException;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link RabbitMessageSource} against a real RabbitMQ broker. */
class RabbitMessageSourceTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private final RabbitTestSupport.Topology topology = new RabbitTestSupport.Topology();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (AutoCloseable closeable : closeables) {
      closeable.close();
    }
    topology.close();
  }

  /** A declared, bound queue on a new exchange: the subscription exists before publishing. */
  private RabbitMessageSource.Builder declaredSource(String exchange, String queue) {
    return RabbitMessageSource.builder()
        .uri(RabbitTestSupport.uri())
        .queue(queue)
        .declareQueue(true)
        .bind(exchange)
        .reconnectDelay(Duration.ofMillis(100));
  }

  private RabbitMessageSource started(RabbitMessageSource.Builder builder, RecordingSink sink) {
    RabbitMessageSource source = builder.build();
    closeables.add(source);
    source.start(sink);
    return source;
  }

  private void publish(String exchange, List<Event> events) {
    try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed(exchange))) {
      assertThat(rabbit.publish(events, TIMEOUT)).allMatch(PublishOutcome::acknowledged);
    }
  }

  private static List<UUID> ids(List<Event> events) {
    return events.stream().map(Event::eventId).toList();
  }

  @Test
  void handsMessagesOverInDeliveryOrderOnTheSourceThread() {
    String exchange = topology.exchangeName("orders");
    String queue = topology.queueName("ordered");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue);
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 5, 300);
    publish(exchange, events);

    RecordingSink sink = new RecordingSink(true);
    RabbitMessageSource source = started(builder, sink);

    await().atMost(TIMEOUT).until(() -> sink.size() == events.size());
    assertThat(sink.events()).containsExactlyElementsOf(events);
    assertThat(sink.threads).containsExactly("tandem-rabbitmq-source-" + queue);
    assertThat(source.isRunning()).isTrue();
    assertThat(source.transport()).isEqualTo("rabbitmq");
    assertThat(source.describe()).contains("queue " + queue).contains("guest:***@");

    InboundMessage first = sink.messages.get(0);
    Event sent = events.get(0);
    assertThat(first.key()).isEqualTo(sent.aggregateId());
    assertThat(first.origin()).isEqualTo("rabbitmq " + queue + "#1");
    assertThat(sink.messages.get(299).origin()).isEqualTo("rabbitmq " + queue + "#300");
    assertThat(first.rawBody()).isEqualTo(sent.payload().getBytes(StandardCharsets.UTF_8));
    Map<String, String> raw = first.rawHeaders();
    assertThat(raw)
        .containsEntry("exchange", exchange)
        .containsEntry("routing_key", sent.aggregateId())
        .containsEntry("redelivered", "false")
        .containsEntry("message_id", sent.eventId().toString())
        .containsEntry("content_type", "application/json")
        .containsEntry("delivery_mode", "2")
        .containsEntry("cloudEvents_id", sent.eventId().toString())
        .containsEntry("cloudEvents_sequence", "1")
        .containsEntry("cloudEvents_traceparent", RabbitTestSupport.TRACEPARENT);

    source.close();
    assertThat(source.isRunning()).isFalse();
    assertThat(topology.messageCount(queue)).as("every message was acknowledged").isZero();
  }

  @Test
  void declaresADurableSingleActiveConsumerQueueBoundToTheAggregateTypesExchange() {
    String queue = topology.queueName("by-type");
    String type = "Shipment" + UUID.randomUUID().toString().substring(0, 6);
    String exchange = ExchangeRouter.DEFAULT_PREFIX + type.toLowerCase(java.util.Locale.ROOT);
    RabbitMessageSource source =
        RabbitMessageSource.builder()
            .uri(RabbitTestSupport.uri())
            .queue(queue)
            .declareQueue(true)
            .bindAggregateType(type)
            .build();
    try {
      source.declare();
      source.declare(); // idempotent
      Event event = RabbitTestSupport.event(type, "s-1", 1);
      try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.byAggregateType())) {
        assertThat(rabbit.publish(List.of(event), TIMEOUT)).allMatch(PublishOutcome::acknowledged);
      }
      RecordingSink sink = new RecordingSink(true);
      source.start(sink);
      await().atMost(TIMEOUT).until(() -> sink.size() == 1);
      assertThat(sink.events()).containsExactly(event);
    } finally {
      source.close();
      topology.deleteExchange(exchange);
    }
    // Declaring the queue again without single active consumer is refused: same name, other args.
    assertThatThrownBy(
            () ->
                RabbitMessageSource.builder()
                    .uri(RabbitTestSupport.uri())
                    .queue(queue)
                    .declareQueue(true)
                    .singleActiveConsumer(false)
                    .build()
                    .declare())
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("cannot declare queue '" + queue + "'")
        .hasMessageContaining("x-single-active-consumer");
  }

  @Test
  void unacknowledgedMessagesAreRedeliveredToTheNextSourceAfterClose() {
    String exchange = topology.exchangeName("redeliver");
    String queue = topology.queueName("redeliver");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue);
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 3, 10);
    publish(exchange, events);

    RecordingSink first = new RecordingSink(false);
    RabbitMessageSource source = started(builder, first);
    await().atMost(TIMEOUT).until(() -> first.size() == 10);
    first.messages.subList(0, 4).forEach(InboundMessage::acknowledge);
    source.close();
    first.messages.get(5).acknowledge(); // after close: dropped without an error

    RecordingSink second = new RecordingSink(true);
    started(builder, second);
    await().atMost(TIMEOUT).until(() -> second.size() >= 6);
    assertThat(second.events()).containsExactlyElementsOf(events.subList(4, 10));
    assertThat(second.messages)
        .allSatisfy(m -> assertThat(m.rawHeaders()).containsEntry("redelivered", "true"));
  }

  @Test
  void acknowledgedMessagesAreNotRedelivered() {
    String exchange = topology.exchangeName("acked");
    String queue = topology.queueName("acked");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue);
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 4, 20);
    publish(exchange, events);

    RecordingSink first = new RecordingSink(true);
    RabbitMessageSource source = started(builder, first);
    await().atMost(TIMEOUT).until(() -> first.size() == 20);
    source.close();
    List<Event> marker = List.of(RabbitTestSupport.event("Order", "marker", 1));
    publish(exchange, marker);

    RecordingSink second = new RecordingSink(true);
    started(builder, second);
    await().atMost(TIMEOUT).until(() -> second.ids().contains(marker.get(0).eventId()));
    // A redelivered message would sit in the queue before the marker (requeued in place).
    assertThat(second.events()).containsExactlyElementsOf(marker);
  }

  private static List<Event> concat(List<Event> a, List<Event> b) {
    List<Event> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  @Test
  void thePrefetchBoundsTheMessagesInFlightWhileTheSinkBlocks() {
    String exchange = topology.exchangeName("prefetch");
    String queue = topology.queueName("prefetch");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue).prefetch(10);
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 5, 100);
    publish(exchange, events);

    Semaphore gate = new Semaphore(3);
    RecordingSink sink = new RecordingSink(false).gatedBy(gate);
    started(builder, sink);

    // 3 taken and held by the "runner", the 4th waits in accept: the broker delivered only 10.
    await().atMost(TIMEOUT).until(() -> sink.size() == 3 && topology.messageCount(queue) == 90);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> sink.size() == 3 && topology.messageCount(queue) == 90);

    sink.acknowledgeAll(); // 3 settled: the broker delivers 3 more
    await().atMost(TIMEOUT).until(() -> topology.messageCount(queue) == 87);
    assertThat(sink.size()).isEqualTo(3);

    gate.release(Integer.MAX_VALUE / 2);
    await()
        .atMost(TIMEOUT)
        .until(
            () -> {
              sink.acknowledgeAll();
              return sink.size() == 100;
            });
    assertThat(sink.events()).containsExactlyElementsOf(events);
  }

  @Test
  void aSecondSourceOnASingleActiveConsumerQueueTakesOverWhenTheFirstCloses() {
    String exchange = topology.exchangeName("sac");
    String queue = topology.queueName("sac");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue).prefetch(100);
    RecordingSink active = new RecordingSink(false);
    RecordingSink standby = new RecordingSink(true);
    RabbitMessageSource first = started(builder, active);
    RabbitMessageSource second = started(builder, standby);
    assertThat(second.isRunning()).isTrue();

    List<Event> events = RabbitTestSupport.events("Order", "order-", 7, 50);
    publish(exchange, events);
    await().atMost(TIMEOUT).until(() -> active.size() == 50);
    assertThat(standby.size()).as("the standby source receives nothing").isZero();
    active.messages.subList(0, 20).forEach(InboundMessage::acknowledge);

    first.close();
    await().atMost(TIMEOUT).until(() -> standby.size() == 30);
    List<Event> more = RabbitTestSupport.events("Order", "later-", 7, 20);
    publish(exchange, more);
    await().atMost(TIMEOUT).until(() -> standby.size() == 50);

    assertThat(standby.events())
        .as("the unacknowledged rest in order, then the new events")
        .containsExactlyElementsOf(concat(events.subList(20, 50), more));
    Set<UUID> settled = new HashSet<>(ids(active.events().subList(0, 20)));
    settled.addAll(standby.ids());
    assertThat(settled).hasSize(70).containsAll(ids(events)).containsAll(ids(more));
  }

  @Test
  void aRefusingSinkStopsTheConsumerAndLeavesTheMessageForTheNextSource() {
    String exchange = topology.exchangeName("refuse");
    String queue = topology.queueName("refuse");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue);
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 2, 6);
    publish(exchange, events);

    RecordingSink refusing = new RecordingSink(true).refusingFrom(2);
    RabbitMessageSource source = started(builder, refusing);
    await().atMost(TIMEOUT).until(() -> !source.isRunning());
    assertThat(refusing.events()).containsExactlyElementsOf(events.subList(0, 2));
    source.close();

    RecordingSink next = new RecordingSink(true);
    started(builder, next);
    await().atMost(TIMEOUT).until(() -> next.size() == 4);
    assertThat(next.events()).containsExactlyElementsOf(events.subList(2, 6));
  }

  @Test
  void aFailingSinkMakesTheSourceConsumeAgainAndTheBrokerRedeliver() {
    String exchange = topology.exchangeName("failing");
    String queue = topology.queueName("failing");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue);
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 2, 5);
    publish(exchange, events);

    RecordingSink sink = new RecordingSink(true).failing(1);
    RabbitMessageSource source = started(builder, sink);
    await().atMost(TIMEOUT).until(() -> sink.size() == 5);
    assertThat(sink.events()).containsExactlyElementsOf(events);
    assertThat(sink.messages.get(0).rawHeaders()).containsEntry("redelivered", "true");
    assertThat(source.isRunning()).isTrue();
  }

  @Test
  void closeIsBoundedWhileTheSinkBlocks() {
    String exchange = topology.exchangeName("blocked");
    String queue = topology.queueName("blocked");
    RabbitMessageSource.Builder builder = declaredSource(exchange, queue);
    builder.build().declare();
    publish(exchange, RabbitTestSupport.events("Order", "order-", 1, 3));
    RecordingSink sink = new RecordingSink(false).gatedBy(new Semaphore(0));
    RabbitMessageSource source = started(builder, sink);
    await().atMost(TIMEOUT).until(() -> !sink.threads.isEmpty()); // blocked in accept

    long started = System.nanoTime();
    source.close();
    source.close(); // idempotent
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    assertThat(source.isRunning()).isFalse();
    assertThatThrownBy(() -> source.start(sink)).isInstanceOf(IllegalStateException.class);
    await().atMost(TIMEOUT).until(() -> topology.messageCount(queue) == 3); // requeued
  }

  @Test
  void startFailsWithTheBrokersReasonWhenTheQueueDoesNotExist() {
    String queue = RabbitTestSupport.unique("missing");
    RabbitMessageSource source =
        RabbitMessageSource.builder().uri(RabbitTestSupport.uri()).queue(queue).build();
    closeables.add(source);
    assertThatThrownBy(() -> source.start(new RecordingSink(true)))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("cannot consume from queue '" + queue + "'")
        .hasMessageContaining("404")
        .hasMessageContaining("no queue");
    assertThat(source.isRunning()).isFalse();
  }

  @Test
  void startFailsWhenTheBrokerCannotBeReached() {
    RabbitMessageSource source =
        RabbitMessageSource.builder()
            .uri("amqp://guest:s3cret@127.0.0.1:" + RabbitTestSupport.closedPort() + "/")
            .queue("anything")
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    closeables.add(source);
    assertThatThrownBy(() -> source.start(new RecordingSink(true)))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("cannot consume from queue 'anything'")
        .hasMessageNotContaining("s3cret");
  }

  /**
   * The lag is what is not processed yet: messages still ready in the queue (beyond the prefetch)
   * plus those delivered and not acknowledged; it falls as they are acknowledged, to 0.
   */
  @Test
  void theLagCountsReadyAndUnacknowledgedMessagesAndFallsAsTheyAreAcknowledged() {
    String exchange = topology.exchangeName("lag");
    String queue = topology.queueName("lag");
    RabbitMessageSource.Builder builder =
        declaredSource(exchange, queue).prefetch(10).lagInterval(Duration.ofMillis(100));
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 4, 40);
    publish(exchange, events);

    RecordingSink sink = new RecordingSink(false); // holds what it is handed, unacknowledged
    RabbitMessageSource source = builder.build();
    closeables.add(source);
    assertThat(source.lag()).as("not started").isEmpty();
    source.start(sink);

    await().atMost(TIMEOUT).until(() -> sink.size() == 10);
    await().atMost(TIMEOUT).until(() -> source.lag().orElse(-1) == 40); // 30 ready + 10 held
    sink.messages.subList(0, 4).forEach(InboundMessage::acknowledge);
    await().atMost(TIMEOUT).until(() -> sink.size() == 14);
    await().atMost(TIMEOUT).until(() -> source.lag().orElse(-1) == 36); // 26 ready + 10 held
    await()
        .atMost(TIMEOUT)
        .until(
            () -> {
              sink.acknowledgeAll(); // each one once: a second acknowledge does nothing
              return sink.size() == events.size();
            });
    sink.acknowledgeAll();
    await().atMost(TIMEOUT).until(() -> source.lag().orElse(-1) == 0);
    source.close();
    assertThat(source.lag()).as("closed").isEmpty();
  }
}
