package io.tandem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.InvalidMessageException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KafkaEventConsumerTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final RetryPolicy FAST_RETRY =
      RetryPolicy.builder().base(Duration.ofMillis(50)).cap(Duration.ofMillis(100)).build();

  private final List<KafkaEventConsumer> consumers = new ArrayList<>();

  @AfterEach
  void closeConsumers() {
    consumers.forEach(KafkaEventConsumer::close);
  }

  private KafkaEventConsumer.Builder consumer(String group, String topic, EventHandler handler) {
    return KafkaEventConsumer.builder()
        .bootstrapServers(KafkaTestSupport.kafka().bootstrapServers())
        .groupId(group)
        .topics(List.of(topic))
        .handler(handler)
        .retryPolicy(FAST_RETRY);
  }

  private KafkaEventConsumer started(KafkaEventConsumer.Builder builder) {
    KafkaEventConsumer consumer = builder.build();
    consumers.add(consumer);
    consumer.start();
    return consumer;
  }

  private static List<Event> publish(String topic, int count) {
    List<Event> events = KafkaTestSupport.events("Order", 1, count);
    try (KafkaTransport kafka = KafkaTestSupport.transport(TopicRouter.fixed(topic))) {
      assertThat(kafka.publish(events, Duration.ofSeconds(30)))
          .allMatch(PublishOutcome::acknowledged);
    }
    return events;
  }

  @Test
  void commitsAnOffsetOnlyAfterTheHandlerReturned() {
    String topic = KafkaTestSupport.newTopic("commit", 1);
    String group = KafkaTestSupport.unique("commit-group");
    List<Event> events = publish(topic, 6);
    Event poison = events.get(2);
    AtomicInteger failuresLeft = new AtomicInteger(3);
    List<Long> committedWhileFailing = new CopyOnWriteArrayList<>();
    List<Event> applied = new CopyOnWriteArrayList<>();
    List<Event> attempted = new CopyOnWriteArrayList<>();

    KafkaEventConsumer consumer =
        started(
            consumer(
                group,
                topic,
                event -> {
                  attempted.add(event);
                  if (event.equals(poison) && failuresLeft.getAndDecrement() > 0) {
                    committedWhileFailing.add(KafkaTestSupport.committedOffset(group, topic));
                    throw new IllegalStateException("database unavailable");
                  }
                  applied.add(event);
                }));

    await().atMost(WAIT).until(() -> applied.size() == events.size());
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 6);
    assertThat(applied).containsExactlyElementsOf(events);
    assertThat(attempted.stream().filter(poison::equals)).hasSize(4);
    assertThat(committedWhileFailing).hasSize(3).allMatch(offset -> offset <= 2);
    assertThat(committedWhileFailing.subList(1, 3)).containsOnly(2L); // earlier work committed
    assertThat(consumer.failedAttempts()).isEqualTo(3);
    assertThat(consumer.handledCount()).isEqualTo(6);
  }

  @Test
  void aSimulatedCrashAfterTheHandlerLeavesTheOffsetUncommittedAndTheRecordIsRedelivered() {
    String topic = KafkaTestSupport.newTopic("crash", 1);
    String group = KafkaTestSupport.unique("crash-group");
    List<Event> events = publish(topic, 3);
    List<Event> firstLife = new CopyOnWriteArrayList<>();
    FaultInjector crashOnce =
        point -> {
          if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)) {
            throw new FaultInjector.SimulatedCrash(point);
          }
        };

    KafkaEventConsumer first =
        started(consumer(group, topic, firstLife::add).faultInjector(crashOnce));
    await().atMost(WAIT).until(() -> !first.isRunning());

    assertThat(firstLife).containsExactly(events.get(0));
    assertThat(first.handledCount()).isEqualTo(1);
    assertThat(KafkaTestSupport.committedOffset(group, topic)).isEqualTo(-1);

    List<Event> secondLife = new CopyOnWriteArrayList<>();
    KafkaEventConsumer second = started(consumer(group, topic, secondLife::add));
    await().atMost(WAIT).until(() -> secondLife.size() == 3);
    assertThat(secondLife).containsExactlyElementsOf(events);
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 3);
    assertThat(second.isRunning()).isTrue();
  }

  @Test
  void anInvalidRecordIsSkippedCountedAndTheNextRecordsAreHandled() {
    String topic = KafkaTestSupport.newTopic("invalid", 1);
    String group = KafkaTestSupport.unique("invalid-group");
    CloudEventsKafkaCodec codec = CloudEventsKafkaCodec.create("/tests");
    Event before = KafkaTestSupport.event("Order", "order-1", 1);
    Event after = KafkaTestSupport.event("Order", "order-1", 2);
    ProducerRecord<String, byte[]> badId = codec.encode(topic, before);
    RecordHeaders badHeaders = new RecordHeaders(badId.headers().toArray());
    badHeaders.remove("ce_id").add("ce_id", "not-a-uuid".getBytes(StandardCharsets.UTF_8));
    KafkaTestSupport.sendRaw(
        List.of(
            codec.encode(topic, before),
            new ProducerRecord<>(topic, "order-1", "plain text".getBytes(StandardCharsets.UTF_8)),
            new ProducerRecord<>(topic, null, "order-1", badId.value(), badHeaders),
            codec.encode(topic, after)));
    List<Event> applied = new CopyOnWriteArrayList<>();
    List<InvalidMessageException> rejected = Collections.synchronizedList(new ArrayList<>());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    KafkaEventConsumer consumer =
        started(
            consumer(group, topic, applied::add)
                .meterRegistry(registry)
                .invalidMessageHandler(
                    (record, error) -> {
                      rejected.add(error);
                      InvalidMessageHandler.LOG_AND_SKIP.handle(record, error);
                    }));

    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 4);
    assertThat(applied).containsExactly(before, after);
    assertThat(consumer.invalidCount()).isEqualTo(2);
    assertThat(consumer.handledCount()).isEqualTo(2);
    assertThat(rejected)
        .extracting(InvalidMessageException::location)
        .containsExactly(
            "at topic " + topic + " partition 0 offset 1",
            "at topic " + topic + " partition 0 offset 2");
    assertThat(rejected.get(0)).hasMessageContaining("specversion");
    assertThat(rejected.get(1)).hasMessageContaining("attribute 'id' 'not-a-uuid' is not a UUID");
    assertThat(registry.get("tandem.consumer.invalid").counter().count()).isEqualTo(2.0);
    assertThat(registry.get("tandem.consumer.handled").tag("group", group).counter().count())
        .isEqualTo(2.0);
  }

  @Test
  void closeFinishesGracefullyAndCommits() {
    String topic = KafkaTestSupport.newTopic("close", 1);
    String group = KafkaTestSupport.unique("close-group");
    publish(topic, 5);
    List<String> threads = new CopyOnWriteArrayList<>();

    KafkaEventConsumer consumer =
        started(consumer(group, topic, e -> threads.add(Thread.currentThread().getName())));
    await().atMost(WAIT).until(() -> consumer.handledCount() == 5);
    consumer.close();

    assertThat(consumer.isRunning()).isFalse();
    assertThat(threads).containsOnly("tandem-kafka-consumer-" + group);
    assertThat(KafkaTestSupport.committedOffset(group, topic)).isEqualTo(5);
    assertThatThrownBy(consumer::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void builderNamesTheMissingOrInvalidParameter() {
    assertThatThrownBy(() -> KafkaEventConsumer.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bootstrapServers");
    assertThatThrownBy(() -> consumer("g", "t", e -> {}).groupId(" ").build())
        .hasMessageContaining("groupId");
    assertThatThrownBy(() -> consumer("g", "bad topic", e -> {}).build())
        .hasMessageContaining("topics 'bad topic'");
    assertThatThrownBy(() -> consumer("g", "t", null).build()).hasMessageContaining("handler");
    assertThatThrownBy(() -> consumer("g", "t", e -> {}).pollTimeout(Duration.ZERO).build())
        .hasMessageContaining("pollTimeout");
    assertThatThrownBy(
            () ->
                consumer("g", "t", e -> {}).consumerProperty("enable.auto.commit", "true").build())
        .hasMessageContaining("consumerProperty(enable.auto.commit)");
  }
}
