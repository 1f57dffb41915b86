package io.tandem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.core.InvalidMessageException;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.kafka.internal.RecordMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaMessageSourceTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final List<KafkaMessageSource> sources = new ArrayList<>();
  private final ScheduledExecutorService acknowledgers = Executors.newScheduledThreadPool(4);

  @AfterEach
  void closeSources() {
    sources.forEach(KafkaMessageSource::close);
    acknowledgers.shutdownNow();
  }

  private static KafkaMessageSource.Builder source(String group, String topic) {
    return KafkaMessageSource.builder()
        .bootstrapServers(KafkaTestSupport.kafka().bootstrapServers())
        .groupId(group)
        .topics(List.of(topic));
  }

  private KafkaMessageSource started(KafkaMessageSource.Builder builder, MessageSink sink) {
    KafkaMessageSource source = builder.build();
    sources.add(source);
    source.start(sink);
    return source;
  }

  private static void publish(String topic, List<Event> events) {
    try (KafkaTransport kafka = KafkaTestSupport.transport(TopicRouter.fixed(topic))) {
      assertThat(kafka.publish(events, Duration.ofSeconds(30)))
          .allMatch(PublishOutcome::acknowledged);
    }
  }

  private static long offset(InboundMessage message) {
    return ((RecordMessage) message).record().offset();
  }

  private static int partition(InboundMessage message) {
    return ((RecordMessage) message).record().partition();
  }

  private static List<Long> offsets(List<InboundMessage> messages) {
    return messages.stream().map(KafkaMessageSourceTest::offset).toList();
  }

  private static List<Long> range(long fromInclusive, long toExclusive) {
    return LongStream.range(fromInclusive, toExclusive).boxed().toList();
  }

  /** Acknowledges {@code message} from another thread, as a runner's worker does. */
  private void acknowledgeElsewhere(InboundMessage message) {
    CompletableFuture.runAsync(message::acknowledge, acknowledgers).join();
  }

  @Test
  void handsOverEveryRecordInPartitionOrderOnItsOwnThread() {
    String topic = KafkaTestSupport.newTopic("source-order", 3);
    String group = KafkaTestSupport.unique("source-order-group");
    List<Event> events = KafkaTestSupport.events("Order", 7, 300);
    publish(topic, events);
    List<InboundMessage> handed = new CopyOnWriteArrayList<>();
    Set<String> threads = ConcurrentHashMap.newKeySet();

    KafkaMessageSource source =
        started(
            source(group, topic),
            message -> {
              handed.add(message);
              threads.add(Thread.currentThread().getName());
              acknowledgers.execute(message::acknowledge);
              return true;
            });

    await().atMost(WAIT).until(() -> handed.size() == events.size());
    assertThat(threads).containsExactly("tandem-kafka-source-" + group);
    Map<Integer, List<Long>> byPartition = new HashMap<>();
    Map<String, List<Long>> versionsByAggregate = new HashMap<>();
    List<Event> decoded = new ArrayList<>();
    for (InboundMessage message : handed) {
      byPartition.computeIfAbsent(partition(message), p -> new ArrayList<>()).add(offset(message));
      Event event = message.decode();
      decoded.add(event);
      versionsByAggregate
          .computeIfAbsent(event.aggregateId(), a -> new ArrayList<>())
          .add(event.aggregateVersion());
      assertThat(message.key()).isEqualTo(event.aggregateId());
    }
    assertThat(decoded).containsExactlyInAnyOrderElementsOf(events);
    byPartition
        .values()
        .forEach(offsets -> assertThat(offsets).isEqualTo(range(0, offsets.size())));
    versionsByAggregate.values().forEach(versions -> assertThat(versions).isSorted());
    await()
        .atMost(WAIT)
        .until(() -> KafkaTestSupport.committedTotal(group, topic) == events.size());
    assertThat(source.isRunning()).isTrue();
    assertThat(source.transport()).isEqualTo("kafka");
    assertThat(source.describe()).isEqualTo("group " + group + " on " + topic);
  }

  @Test
  void aMessageCarriesTheRawRecordAndAnInvalidOneFailsToDecode() {
    String topic = KafkaTestSupport.newTopic("source-raw", 1);
    String group = KafkaTestSupport.unique("source-raw-group");
    Event event = KafkaTestSupport.event("Order", "order-1", 1);
    ProducerRecord<String, byte[]> valid =
        CloudEventsKafkaCodec.create("/tests").encode(topic, event);
    KafkaTestSupport.sendRaw(
        List.of(
            valid,
            new ProducerRecord<>(topic, "order-1", "plain text".getBytes(StandardCharsets.UTF_8)),
            new ProducerRecord<>(topic, null, null)));
    List<InboundMessage> handed = new CopyOnWriteArrayList<>();

    started(source(group, topic), handed::add);

    await().atMost(WAIT).until(() -> handed.size() == 3);
    InboundMessage first = handed.get(0);
    assertThat(first.decode()).isEqualTo(event);
    assertThat(first.origin()).isEqualTo("kafka " + topic + "[0]@0");
    assertThat(first.rawHeaders())
        .containsEntry("ce_id", event.eventId().toString())
        .containsEntry("ce_traceparent", KafkaTestSupport.TRACEPARENT);
    assertThat(new String(first.rawBody(), StandardCharsets.UTF_8)).isEqualTo(event.payload());
    InboundMessage plain = handed.get(1);
    assertThatThrownBy(plain::decode)
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("offset 1")
        .hasMessageContaining("specversion");
    assertThat(plain.rawHeaders()).isEmpty();
    assertThat(plain.rawBody()).isEqualTo("plain text".getBytes(StandardCharsets.UTF_8));
    InboundMessage empty = handed.get(2);
    assertThat(empty.key()).isNull();
    assertThat(empty.rawBody()).isEmpty();
    assertThatThrownBy(empty::decode).isInstanceOf(InvalidMessageException.class);
  }

  @Test
  void commitsOnlyTheContiguousPrefixOfRecordsAcknowledgedOutOfOrder() {
    String topic = KafkaTestSupport.newTopic("source-prefix", 1);
    String group = KafkaTestSupport.unique("source-prefix-group");
    publish(topic, KafkaTestSupport.events("Order", 5, 10));
    List<InboundMessage> handed = new CopyOnWriteArrayList<>();
    started(source(group, topic), handed::add);
    await().atMost(WAIT).until(() -> handed.size() == 10);
    assertThat(offsets(handed)).isEqualTo(range(0, 10));

    for (int i : new int[] {1, 2, 4, 5, 7}) {
      acknowledgeElsewhere(handed.get(i));
    }
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> KafkaTestSupport.committedOffset(group, topic) == -1);

    acknowledgeElsewhere(handed.get(0));
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 3);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> KafkaTestSupport.committedOffset(group, topic) == 3);

    acknowledgeElsewhere(handed.get(3));
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 6);
    for (int i : new int[] {9, 8, 6}) {
      acknowledgeElsewhere(handed.get(i));
    }
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 10);
  }

  @Test
  void recordsNotAcknowledgedAreDeliveredAgainToTheNextSourceOfTheGroup() {
    String topic = KafkaTestSupport.newTopic("source-redeliver", 1);
    String group = KafkaTestSupport.unique("source-redeliver-group");
    publish(topic, KafkaTestSupport.events("Order", 3, 6));
    List<InboundMessage> first = new CopyOnWriteArrayList<>();
    KafkaMessageSource one = started(source(group, topic), first::add);
    await().atMost(WAIT).until(() -> first.size() == 6);
    for (int i : new int[] {0, 1, 3, 5}) {
      acknowledgeElsewhere(first.get(i));
    }

    one.close();

    assertThat(one.isRunning()).isFalse();
    assertThat(KafkaTestSupport.committedOffset(group, topic)).isEqualTo(2);
    first.get(2).acknowledge(); // after close: ignored, and does not throw
    List<InboundMessage> second = new CopyOnWriteArrayList<>();
    started(
        source(group, topic),
        message -> {
          second.add(message);
          message.acknowledge();
          return true;
        });
    await().atMost(WAIT).until(() -> second.size() == 4);
    assertThat(offsets(second)).isEqualTo(range(2, 6));
    assertThat(second.stream().map(InboundMessage::decode))
        .containsExactlyElementsOf(
            first.subList(2, 6).stream().map(InboundMessage::decode).toList());
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 6);
  }

  @Test
  void aBlockedSinkStopsTheFetchingWhileTheSourceStaysInTheGroup() {
    String topic = KafkaTestSupport.newTopic("source-blocked", 1);
    String group = KafkaTestSupport.unique("source-blocked-group");
    int count = 400;
    publish(topic, KafkaTestSupport.events("Order", 4, count));
    CountDownLatch release = new CountDownLatch(1);
    List<Long> handed = new CopyOnWriteArrayList<>();
    KafkaMessageSource source =
        started(
            source(group, topic)
                .consumerProperty("max.poll.interval.ms", "6000")
                .consumerProperty("max.poll.records", "10")
                .rebalanceTimeout(Duration.ofSeconds(3)),
            message -> {
              handed.add(offset(message));
              if (handed.size() == 1) {
                release.await();
              }
              message.acknowledge();
              return true;
            });
    await().atMost(WAIT).until(() -> handed.size() == 1);

    // blocked for longer than max.poll.interval.ms: no more hand-overs, fetching paused at twice
    // max.poll.records waiting (plus one poll), and no eviction
    await()
        .during(Duration.ofSeconds(10))
        .atMost(Duration.ofSeconds(20))
        .until(() -> handed.size() == 1 && source.fetchedCount() <= 30);
    release.countDown();

    await().atMost(WAIT).until(() -> handed.size() >= count);
    // an eviction would have lost the partition and delivered offset 0 again
    assertThat(handed).isEqualTo(range(0, count));
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == count);
    assertThat(source.isRunning()).isTrue();
    assertThat(source.fetchedCount()).isEqualTo(count);
  }

  @Test
  void aRefusingSinkStopsReceivingAndLeavesTheRestUnacknowledged() {
    String topic = KafkaTestSupport.newTopic("source-refused", 1);
    String group = KafkaTestSupport.unique("source-refused-group");
    publish(topic, KafkaTestSupport.events("Order", 2, 8));
    List<InboundMessage> handed = new CopyOnWriteArrayList<>();
    KafkaMessageSource source =
        started(
            source(group, topic),
            message -> {
              handed.add(message);
              if (handed.size() > 3) {
                return false;
              }
              message.acknowledge();
              return true;
            });

    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 3);
    await().atMost(WAIT).until(() -> !source.isRunning());
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> handed.size() == 4 && KafkaTestSupport.committedOffset(group, topic) == 3);
    source.close();

    List<InboundMessage> next = new CopyOnWriteArrayList<>();
    started(source(group, topic), next::add);
    await().atMost(WAIT).until(() -> next.size() == 5);
    assertThat(offsets(next)).isEqualTo(range(3, 8));
  }

  @ParameterizedTest(name = "group.protocol={0}")
  @ValueSource(strings = {"classic", "consumer"})
  void aSourceJoiningMidStreamTakesOverPartitionsWithoutLosingOrRepeatingRecords(String protocol)
      throws Exception {
    String topic = KafkaTestSupport.newTopic("source-rebalance", 4);
    String group = KafkaTestSupport.unique("source-rebalance-group");
    List<Event> events = KafkaTestSupport.events("Order", 40, 10_000);
    List<Handing> handings = new CopyOnWriteArrayList<>();
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicInteger handedByFirst = new AtomicInteger();
    AtomicInteger handedBySecond = new AtomicInteger();
    AtomicBoolean secondAssigned = new AtomicBoolean();
    AtomicInteger published = new AtomicInteger();
    // publishes batches as the sources keep up, until the second source has partitions and then
    // 20 more
    CompletableFuture<Void> publisher =
        CompletableFuture.runAsync(
            () -> {
              try (KafkaTransport kafka = KafkaTestSupport.transport(TopicRouter.fixed(topic))) {
                int batchesAfter = 0;
                while (batchesAfter < 20 && published.get() < events.size()) {
                  // keep at most 200 records ahead of the sources: the stream flows throughout
                  await().atMost(WAIT).until(() -> handings.size() >= published.get() - 200);
                  List<Event> batch = events.subList(published.get(), published.get() + 50);
                  assertThat(kafka.publish(batch, Duration.ofSeconds(30)))
                      .allMatch(PublishOutcome::acknowledged);
                  published.addAndGet(batch.size());
                  batchesAfter += secondAssigned.get() ? 1 : 0;
                }
              }
            });

    KafkaMessageSource first =
        started(
            source(group, topic).consumerProperty("group.protocol", protocol),
            throttled("first", handings, acknowledged, handedByFirst));
    await().atMost(WAIT).until(() -> handedByFirst.get() >= 200);
    KafkaMessageSource second =
        started(
            source(group, topic).consumerProperty("group.protocol", protocol),
            throttled("second", handings, acknowledged, handedBySecond));
    await().atMost(WAIT).until(() -> !second.assignment().isEmpty());
    secondAssigned.set(true);
    publisher.get(60, TimeUnit.SECONDS);
    int count = published.get();

    await().atMost(WAIT).until(() -> acknowledged.size() == count);
    await().atMost(WAIT).until(() -> KafkaTestSupport.committedTotal(group, topic) == count);
    assertThat(count).isLessThan(events.size());
    assertThat(first.assignment()).isNotEmpty();
    assertThat(second.assignment()).isNotEmpty();
    assertThat(handedBySecond.get()).isPositive();
    // every record handed over exactly once (all were acknowledged within the rebalance timeout),
    // in partition order across both sources
    Map<Integer, List<Long>> byPartition = new HashMap<>();
    handings.forEach(
        h -> byPartition.computeIfAbsent(h.partition(), p -> new ArrayList<>()).add(h.offset()));
    assertThat(handings).hasSize(count);
    byPartition
        .values()
        .forEach(offsets -> assertThat(offsets).isEqualTo(range(0, offsets.size())));
  }

  @Test
  void acknowledgementsArrivingAfterARevocationAreIgnoredAndTheRecordsGoToTheNewOwner() {
    String topic = KafkaTestSupport.newTopic("source-late", 2);
    String group = KafkaTestSupport.unique("source-late-group");
    publish(topic, KafkaTestSupport.events("Order", 6, 60));
    List<InboundMessage> held = new CopyOnWriteArrayList<>();
    started(source(group, topic).rebalanceTimeout(Duration.ofSeconds(1)), held::add);
    await().atMost(WAIT).until(() -> held.size() == 60);
    List<InboundMessage> taken = new CopyOnWriteArrayList<>();

    KafkaMessageSource second =
        started(
            source(group, topic),
            message -> {
              taken.add(message);
              message.acknowledge();
              return true;
            });
    await().atMost(WAIT).until(() -> !second.assignment().isEmpty());
    Set<Integer> moved = new HashSet<>();
    second.assignment().forEach(p -> moved.add(p.partition()));
    List<InboundMessage> lateOnes =
        held.stream().filter(m -> moved.contains(partition(m))).limit(5).toList();
    long movedRecords = held.stream().filter(m -> moved.contains(partition(m))).count();
    await().atMost(WAIT).until(() -> taken.size() >= movedRecords);
    Map<Integer, Long> ends = new HashMap<>();
    taken.forEach(m -> ends.merge(partition(m), offset(m) + 1, Math::max));
    await()
        .atMost(WAIT)
        .until(
            () ->
                KafkaTestSupport.committedOffsets(group, topic)
                    .entrySet()
                    .containsAll(ends.entrySet()));

    // the first source was given 1 s: its records were delivered again, from the start
    assertThat(taken.stream().filter(m -> offset(m) == 0)).hasSize(moved.size());
    lateOnes.forEach(this::acknowledgeElsewhere); // would commit 5, going back, if counted
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(
            () ->
                KafkaTestSupport.committedOffsets(group, topic)
                    .entrySet()
                    .containsAll(ends.entrySet()));
  }

  @Test
  void aSinkThatThrowsGetsTheSameRecordAgain() {
    String topic = KafkaTestSupport.newTopic("source-throws", 1);
    String group = KafkaTestSupport.unique("source-throws-group");
    publish(topic, KafkaTestSupport.events("Order", 1, 3));
    List<Long> attempts = new CopyOnWriteArrayList<>();
    started(
        source(group, topic),
        message -> {
          attempts.add(offset(message));
          if (attempts.size() <= 2) {
            throw new IllegalStateException("runner hiccup");
          }
          message.acknowledge();
          return true;
        });

    await().atMost(WAIT).until(() -> KafkaTestSupport.committedOffset(group, topic) == 3);
    assertThat(attempts).containsExactly(0L, 0L, 0L, 1L, 2L);
  }

  private record Handing(String source, int partition, long offset) {}

  /**
   * A sink like a runner with 16 slots: it blocks while 16 of its messages are unacknowledged, and
   * acknowledges each 5-40 ms later from another thread, so that acknowledgements come out of order
   * and some are pending whenever a rebalance starts.
   */
  private MessageSink throttled(
      String name, List<Handing> handings, Set<String> acknowledged, AtomicInteger counter) {
    Semaphore slots = new Semaphore(16);
    return message -> {
      slots.acquire();
      handings.add(new Handing(name, partition(message), offset(message)));
      counter.incrementAndGet();
      acknowledgers.schedule(
          () -> {
            message.acknowledge();
            acknowledged.add(message.origin());
            slots.release();
          },
          ThreadLocalRandom.current().nextInt(5, 40),
          TimeUnit.MILLISECONDS);
      return true;
    };
  }

  @Test
  void closeIsBoundedEvenWhenTheSinkIgnoresInterrupts() {
    String topic = KafkaTestSupport.newTopic("source-close", 1);
    String group = KafkaTestSupport.unique("source-close-group");
    publish(topic, KafkaTestSupport.events("Order", 2, 5));
    AtomicBoolean release = new AtomicBoolean();
    List<InboundMessage> handed = new CopyOnWriteArrayList<>();
    KafkaMessageSource source =
        started(
            source(group, topic).closeTimeout(Duration.ofSeconds(2)),
            message -> {
              handed.add(message);
              if (handed.size() < 3) {
                message.acknowledge();
                return true;
              }
              while (!release.get()) { // a sink that swallows interrupts and never returns
                try {
                  new CountDownLatch(1).await(10, TimeUnit.MILLISECONDS);
                } catch (InterruptedException ignored) {
                  // keeps blocking
                }
              }
              return false;
            });
    await().atMost(WAIT).until(() -> handed.size() == 3);

    long started = System.nanoTime();
    source.close();
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    release.set(true);
    assertThat(took).isLessThan(Duration.ofSeconds(5));
    assertThat(source.isRunning()).isFalse();
    assertThat(KafkaTestSupport.committedOffset(group, topic)).isEqualTo(2);
    source.close(); // idempotent
    assertThatThrownBy(() -> source.start(m -> true)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void builderNamesTheMissingOrInvalidParameter() {
    assertThatThrownBy(() -> KafkaMessageSource.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bootstrapServers");
    assertThatThrownBy(() -> source(" ", "t").build()).hasMessageContaining("groupId");
    assertThatThrownBy(() -> source("g", "bad topic").build())
        .hasMessageContaining("topics 'bad topic'");
    assertThatThrownBy(() -> source("g", "t").pollTimeout(Duration.ZERO).build())
        .hasMessageContaining("pollTimeout");
    assertThatThrownBy(() -> source("g", "t").closeTimeout(null).build())
        .hasMessageContaining("closeTimeout");
    assertThatThrownBy(() -> source("g", "t").rebalanceTimeout(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("rebalanceTimeout");
    assertThatThrownBy(
            () ->
                source("g", "t")
                    .consumerProperty("max.poll.interval.ms", "10000")
                    .rebalanceTimeout(Duration.ofSeconds(10))
                    .build())
        .hasMessageContaining("rebalanceTimeout (PT10S) must be shorter than max.poll.interval.ms");
    assertThatThrownBy(() -> source("g", "t").consumerProperty("max.poll.records", "many").build())
        .hasMessageContaining("consumerProperty(max.poll.records)");
    assertThatThrownBy(
            () -> source("g", "t").consumerProperty("enable.auto.commit", "true").build())
        .hasMessageContaining("consumerProperty(enable.auto.commit)");
    assertThatThrownBy(() -> source("g", "t").consumerProperty("group.id", "other").build())
        .hasMessageContaining("consumerProperty(group.id)");
    assertThatThrownBy(
            () ->
                source("g", "t").consumerProperty("value.deserializer", "org.example.Mine").build())
        .hasMessageContaining("consumerProperty(value.deserializer)");
    assertThatThrownBy(() -> source("g", "t").build().start(null)).hasMessageContaining("sink");
    KafkaMessageSource unstarted = source("g", "t").build();
    unstarted.close();
    assertThat(unstarted.isRunning()).isFalse();
    assertThat(unstarted.assignment()).isEmpty();
  }

  /**
   * The lag is what is not processed yet: fetched and unacknowledged records count until they are
   * acknowledged, records still on the broker until they are fetched; it reaches 0 when all are.
   */
  @Test
  void theLagCountsWhatIsNotAcknowledgedYetAndFallsToZero() {
    String topic = KafkaTestSupport.newTopic("source-lag", 2);
    String group = KafkaTestSupport.unique("source-lag-group");
    List<Event> events = KafkaTestSupport.events("Order", 5, 40);
    publish(topic, events);
    List<InboundMessage> held = new CopyOnWriteArrayList<>();

    KafkaMessageSource source =
        started(
            source(group, topic),
            message -> {
              held.add(message); // not acknowledged yet
              return true;
            });
    assertThat(source.lag()).as("before the broker said anything").isEmpty();

    await().atMost(WAIT).until(() -> held.size() == events.size());
    await().atMost(WAIT).until(() -> source.lag().orElse(-1) == events.size());
    held.subList(0, 10).forEach(this::acknowledgeElsewhere);
    await().atMost(WAIT).until(() -> source.lag().orElse(-1) == events.size() - 10);
    held.subList(10, held.size()).forEach(this::acknowledgeElsewhere);
    await().atMost(WAIT).until(() -> source.lag().orElse(-1) == 0);
  }
}
