package io.tandem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.core.InvalidMessageException;
import io.tandem.core.TandemException;
import io.tandem.core.spi.InboundMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XPendingParams;
import redis.clients.jedis.resps.StreamConsumerInfo;
import redis.clients.jedis.resps.StreamPendingEntry;
import redis.clients.jedis.util.SafeEncoder;

class RedisStreamsMessageSourceTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final String prefix = RedisTestSupport.uniquePrefix();
  private final String stream = prefix + "order";
  private final String group = prefix + "billing";
  private final RedisCloudEventsCodec codec = RedisCloudEventsCodec.create();
  private final List<RedisStreamsMessageSource> sources = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    sources.forEach(RedisStreamsMessageSource::close);
    RedisTestSupport.deleteKeys(prefix);
  }

  private RedisStreamsMessageSource.Builder source() {
    return RedisStreamsMessageSource.builder()
        .uri(RedisTestSupport.uri())
        .streams(stream)
        .group(group)
        .pollTimeout(Duration.ofMillis(200));
  }

  private RedisStreamsMessageSource started(
      RedisStreamsMessageSource.Builder builder, RecordingSink sink) {
    RedisStreamsMessageSource source = builder.build();
    sources.add(source);
    source.start(sink);
    return source;
  }

  private List<StreamEntryID> publish(List<Event> events) {
    List<StreamEntryID> ids = new ArrayList<>();
    for (Event event : events) {
      ids.add(RedisTestSupport.admin().xadd(stream, XAddParams.xAddParams(), codec.encode(event)));
    }
    return ids;
  }

  private static List<String> ids(List<Event> events) {
    return events.stream().map(e -> e.eventId().toString()).toList();
  }

  private long pending() {
    return RedisTestSupport.admin().xpending(stream, group).getTotal();
  }

  private List<String> consumers() {
    return RedisTestSupport.admin().xinfoConsumers2(stream, group).stream()
        .map(StreamConsumerInfo::getName)
        .toList();
  }

  @Test
  void handsEntriesOverInStreamOrderAsMessagesThatDecodeToTheEvents() {
    List<Event> events = RedisTestSupport.events("Order", 5, 250);
    List<StreamEntryID> entryIds = publish(events);
    RecordingSink sink = RecordingSink.holding();

    RedisStreamsMessageSource source = started(source().batchSize(40), sink);

    await().atMost(WAIT).until(() -> sink.received.size() == events.size());
    assertThat(sink.eventIds()).containsExactlyElementsOf(ids(events));
    for (int i = 0; i < events.size(); i++) {
      InboundMessage message = sink.received.get(i);
      Event sent = events.get(i);
      assertThat(message.decode()).isEqualTo(sent);
      assertThat(message.key()).isEqualTo(sent.aggregateId());
      assertThat(message.origin()).isEqualTo("redis " + stream + " " + entryIds.get(i));
      assertThat(message.rawBody()).isEqualTo(sent.payload().getBytes(StandardCharsets.UTF_8));
      assertThat(message.rawHeaders())
          .containsEntry("ce_id", sent.eventId().toString())
          .containsEntry("ce_partitionkey", sent.aggregateId())
          .containsEntry("datacontenttype", "application/json")
          .doesNotContainKey("data");
    }
    assertThat(source.isRunning()).isTrue();
    assertThat(source.transport()).isEqualTo("redis");
    assertThat(source.describe())
        .isEqualTo("group " + group + " on " + stream + " as consumer " + source.consumer());
    assertThat(pending()).isEqualTo(events.size()); // delivered, not yet acknowledged
  }

  @Test
  void acknowledgedEntriesAreSettledAndNotDeliveredAgain() {
    List<Event> events = RedisTestSupport.events("Order", 3, 30);
    publish(events);
    RecordingSink first = RecordingSink.holding();
    RedisStreamsMessageSource source =
        started(source().claimIdleAfter(Duration.ofMillis(200)), first);
    await().atMost(WAIT).until(() -> first.received.size() == events.size());

    ExecutorService workers = Executors.newFixedThreadPool(4); // acknowledged from other threads
    first.received.forEach(m -> workers.execute(m::acknowledge));
    workers.shutdown();
    await().atMost(WAIT).until(() -> pending() == 0);
    source.close();

    RecordingSink second = RecordingSink.holding();
    started(source().claimIdleAfter(Duration.ofMillis(200)), second);
    Event later = RedisTestSupport.event("Order", "order-9", 1);
    publish(List.of(later));

    // several claim passes (every 100 ms) find nothing to claim: only the new entry arrives
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> second.eventIds().equals(ids(List.of(later))));
    assertThat(first.eventIds()).containsExactlyElementsOf(ids(events));
  }

  @Test
  void unacknowledgedEntriesOfAClosedSourceAreClaimedByAnotherSourceOfTheGroup() {
    List<Event> events = RedisTestSupport.events("Order", 4, 20);
    publish(events);
    RecordingSink first = RecordingSink.holding();
    long startedAt = System.nanoTime(); // no entry was delivered before
    RedisStreamsMessageSource closed =
        started(source().claimIdleAfter(Duration.ofMillis(700)), first);
    await().atMost(WAIT).until(() -> first.received.size() == events.size());
    Set<String> acknowledged = new HashSet<>();
    for (int i = 0; i < events.size(); i += 3) {
      first.received.get(i).acknowledge();
      acknowledged.add(events.get(i).eventId().toString());
    }
    closed.close();
    assertThat(consumers()).contains(closed.consumer()); // kept: entries of it are pending

    RecordingSink second = RecordingSink.acknowledging();
    started(source().claimIdleAfter(Duration.ofMillis(700)), second);

    List<String> expected = ids(events).stream().filter(id -> !acknowledged.contains(id)).toList();
    await().atMost(WAIT).until(() -> second.received.size() >= expected.size());
    assertThat(Duration.ofNanos(second.firstTakenAt() - startedAt))
        .as("claimed only after being idle for claimIdleAfter")
        .isGreaterThanOrEqualTo(Duration.ofMillis(700));
    assertThat(second.eventIds()).containsExactlyInAnyOrderElementsOf(expected);
    await().atMost(WAIT).until(() -> pending() == 0);
  }

  @Test
  void aRestartedConsumerReReadsItsOwnPendingEntriesAtOnceAndSettlesTrimmedOnes() {
    List<Event> events = RedisTestSupport.events("Order", 2, 6);
    List<StreamEntryID> entryIds = publish(events);
    RecordingSink first = RecordingSink.holding();
    RedisStreamsMessageSource before =
        started(source().consumer("pod-1").claimIdleAfter(Duration.ofHours(1)), first);
    await().atMost(WAIT).until(() -> first.received.size() == events.size());
    before.close();
    RedisTestSupport.admin().xdel(stream, entryIds.get(2)); // trimmed while pending

    RecordingSink second = RecordingSink.acknowledging();
    started(source().consumer("pod-1").claimIdleAfter(Duration.ofHours(1)), second);

    List<Event> remaining = new ArrayList<>(events);
    remaining.remove(2);
    await().atMost(WAIT).until(() -> pending() == 0);
    assertThat(second.eventIds()).containsExactlyElementsOf(ids(remaining));
  }

  @Test
  void aBlockingSinkBoundsWhatIsReadToOneBatch() {
    List<Event> events = RedisTestSupport.events("Order", 5, 100);
    publish(events);
    RecordingSink sink = RecordingSink.acknowledging().close();

    started(source().batchSize(10), sink);

    await().atMost(WAIT).until(sink::blocked);
    await()
        .during(Duration.ofMillis(800))
        .atMost(WAIT)
        .until(() -> pending() == 10 && sink.received.isEmpty());
    sink.open();
    await().atMost(WAIT).until(() -> sink.received.size() == events.size());
    assertThat(sink.eventIds()).containsExactlyElementsOf(ids(events));
    await().atMost(WAIT).until(() -> pending() == 0);
  }

  @Test
  void aSinkThatRefusesStopsTheSourceAndLeavesTheRestPending() {
    List<Event> events = RedisTestSupport.events("Order", 5, 50);
    List<StreamEntryID> entryIds = publish(events);
    RecordingSink sink = RecordingSink.acknowledging().refuseAfter(7);

    RedisStreamsMessageSource source = started(source().batchSize(20), sink);

    await().atMost(WAIT).until(() -> !source.isRunning());
    assertThat(sink.eventIds()).containsExactlyElementsOf(ids(events.subList(0, 7)));
    assertThat(pending()).isEqualTo(20 - 7); // the refused entry and the rest of its batch
    assertThat(
            RedisTestSupport.admin()
                .xpending(stream, group, XPendingParams.xPendingParams("-", "+", 100))
                .stream()
                .map(StreamPendingEntry::getID)
                .toList())
        .containsExactlyElementsOf(entryIds.subList(7, 20));
  }

  @Test
  void twoSourcesOfOneGroupShareTheEntriesAndNothingIsLostWhenOneClosesMidStream()
      throws Exception {
    List<Event> events = RedisTestSupport.events("Order", 20, 2000);
    Set<String> settled = ConcurrentHashMap.newKeySet();
    ExecutorService workers = Executors.newFixedThreadPool(4);
    // a runner's workers: each message acknowledged a little later, on another thread; source A's
    // messages after its 200th are never acknowledged: A closes with them in flight
    // (counted by A itself: a check of the shared set raced with B's settling, so A could
    // settle a few more than 200 and B be handed fewer than 1,800)
    java.util.concurrent.atomic.AtomicInteger settledByA =
        new java.util.concurrent.atomic.AtomicInteger();
    RecordingSink sinkA =
        RecordingSink.then(
            m -> {
              if (settledByA.getAndIncrement() < 200) {
                workers.execute(() -> settle(m, settled));
              }
            });
    RecordingSink sinkB = RecordingSink.then(m -> workers.execute(() -> settle(m, settled)));
    RedisStreamsMessageSource a =
        started(source().batchSize(25).claimIdleAfter(Duration.ofMillis(500)), sinkA);
    RedisStreamsMessageSource b =
        started(source().batchSize(25).claimIdleAfter(Duration.ofMillis(500)), sinkB);

    ExecutorService producer = Executors.newSingleThreadExecutor();
    Future<?> publishing =
        producer.submit(
            () -> {
              for (int i = 0; i < events.size(); i += 50) {
                publish(events.subList(i, i + 50));
              }
            });
    await().atMost(WAIT).until(() -> sinkA.received.size() >= 300);
    a.close();
    int takenByA = sinkA.received.size();
    publishing.get(30, TimeUnit.SECONDS);
    producer.shutdown();

    await().atMost(WAIT).until(() -> settled.containsAll(ids(events)) && pending() == 0);
    workers.shutdown();
    assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(settled).hasSize(events.size());
    assertThat(sinkA.received).hasSize(takenByA); // nothing after close
    assertThat(sinkB.received.size()).isGreaterThanOrEqualTo(events.size() - 200);
    assertThat(a.isRunning()).isFalse();
    assertThat(b.isRunning()).isTrue();
  }

  private static void settle(InboundMessage message, Set<String> settled) {
    settled.add(message.decode().eventId().toString());
    message.acknowledge();
  }

  @Test
  void readsSeveralStreamsAndKeepsEachOnesOrder() {
    String refunds = prefix + "refund";
    List<Event> orders = RedisTestSupport.events("Order", 3, 30);
    List<Event> refundEvents = RedisTestSupport.events("Refund", 3, 30);
    publish(orders);
    refundEvents.forEach(
        e -> RedisTestSupport.admin().xadd(refunds, XAddParams.xAddParams(), codec.encode(e)));
    RecordingSink sink = RecordingSink.acknowledging();

    started(source().streams(stream, refunds).batchSize(7), sink);

    await().atMost(WAIT).until(() -> sink.received.size() == 60);
    assertThat(sink.received.stream().filter(m -> m.origin().contains(refunds)).toList())
        .extracting(m -> m.decode().eventId().toString())
        .containsExactlyElementsOf(ids(refundEvents));
    assertThat(sink.received.stream().filter(m -> m.origin().contains(stream + " ")).toList())
        .extracting(m -> m.decode().eventId().toString())
        .containsExactlyElementsOf(ids(orders));
  }

  @Test
  void anEntryThatIsNotATandemEventIsHandedOverAndFailsToDecodeNamingTheEntry() {
    Map<String, String> fields =
        new LinkedHashMap<>(codec.encode(RedisTestSupport.event("Order", "order-1", 1)));
    fields.remove("ce_id");
    StreamEntryID id = RedisTestSupport.admin().xadd(stream, XAddParams.xAddParams(), fields);
    RecordingSink sink = RecordingSink.holding();

    started(source(), sink);

    await().atMost(WAIT).until(() -> sink.received.size() == 1);
    InboundMessage message = sink.received.get(0);
    assertThatThrownBy(message::decode)
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining(id.toString())
        .hasMessageContaining("ce_id");
    assertThat(message.key()).isEqualTo("order-1");
    assertThat(message.rawHeaders()).containsEntry("ce_type", "OrderPlaced");
    assertThat(new String(message.rawBody(), StandardCharsets.UTF_8)).isEqualTo(fields.get("data"));
    message.acknowledge(); // as the runner does after recording a dead letter
    await().atMost(WAIT).until(() -> pending() == 0);
  }

  @Test
  void closeEndsAHandOverBlockedInTheSinkPromptlyAndLeavesTheEntryPending() {
    publish(RedisTestSupport.events("Order", 1, 3));
    RecordingSink sink = RecordingSink.acknowledging().close();
    RedisStreamsMessageSource source = started(source().pollTimeout(Duration.ofSeconds(5)), sink);
    await().atMost(WAIT).until(sink::blocked);

    long before = System.nanoTime();
    source.close();
    source.close(); // idempotent

    assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(2));
    assertThat(source.isRunning()).isFalse();
    assertThat(sink.received).isEmpty();
    assertThat(pending()).isEqualTo(3);
    assertThat(consumers()).contains(source.consumer()); // its entries are pending
  }

  @Test
  void closeEndsABlockingReadPromptlyAndRemovesAGeneratedConsumerWithNothingPending() {
    RecordingSink sink = RecordingSink.acknowledging();
    RedisStreamsMessageSource source = started(source().pollTimeout(Duration.ofSeconds(30)), sink);
    publish(RedisTestSupport.events("Order", 1, 2));
    await().atMost(WAIT).until(() -> sink.received.size() == 2 && pending() == 0);
    assertThat(consumers()).containsExactly(source.consumer());

    long before = System.nanoTime();
    source.close();

    assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(2));
    assertThat(source.isRunning()).isFalse();
    assertThat(consumers()).isEmpty();
  }

  @Test
  void aKilledConnectionIsReplacedAndReadingGoesOn() {
    RecordingSink sink = RecordingSink.acknowledging();
    RedisStreamsMessageSource source = started(source().claimIdleAfter(Duration.ofHours(1)), sink);
    List<Event> first = RedisTestSupport.events("Order", 2, 10);
    publish(first);
    await().atMost(WAIT).until(() -> sink.received.size() == 10);

    String clients =
        SafeEncoder.encode(
            (byte[]) RedisTestSupport.admin().sendCommand(Protocol.Command.CLIENT, "LIST"));
    String reader =
        clients
            .lines()
            .filter(line -> line.contains("cmd=xreadgroup"))
            .map(line -> line.split(" ")[0].substring("id=".length()))
            .findFirst()
            .orElseThrow();
    RedisTestSupport.admin().sendCommand(Protocol.Command.CLIENT, "KILL", "ID", reader);
    List<Event> second = RedisTestSupport.events("Order", 2, 10).subList(0, 10);
    publish(second);

    await().atMost(WAIT).until(() -> sink.received.size() == 20 && pending() == 0);
    assertThat(source.isRunning()).isTrue();
    assertThat(sink.eventIds().subList(10, 20)).containsExactlyElementsOf(ids(second));
  }

  @Test
  void aDeletedGroupIsCreatedAgainAtTheStreamsStart() {
    RecordingSink sink = RecordingSink.acknowledging();
    RedisStreamsMessageSource source = started(source(), sink);
    List<Event> events = RedisTestSupport.events("Order", 1, 3);
    publish(events);
    await().atMost(WAIT).until(() -> sink.received.size() == 3);

    RedisTestSupport.admin().xgroupDestroy(stream, group);

    await().atMost(WAIT).until(() -> sink.received.size() == 6); // everything again, from 0
    assertThat(sink.eventIds().subList(3, 6)).containsExactlyElementsOf(ids(events));
    assertThat(source.isRunning()).isTrue();
  }

  @Test
  void startFailsNamingTheStreamWhenItsKeyHoldsSomethingElse() {
    RedisTestSupport.admin().set(stream, "not a stream");
    RedisStreamsMessageSource source = source().build();
    sources.add(source);

    assertThatThrownBy(() -> source.start(RecordingSink.holding()))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining(stream)
        .hasMessageContaining(group)
        .hasMessageContaining("WRONGTYPE");
    assertThat(source.isRunning()).isFalse();
  }

  @Test
  void startFailsWhenRedisCannotBeReached() {
    RedisStreamsMessageSource source =
        source().uri("redis://127.0.0.1:" + RedisTestSupport.closedPort()).build();
    sources.add(source);

    assertThatThrownBy(() -> source.start(RecordingSink.holding()))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("cannot create consumer group " + group);
  }

  @Test
  void theBuilderNamesTheParameterThatIsWrong() {
    assertThatThrownBy(() -> source().uri("http://x").build())
        .hasMessageContaining("uri 'http://x'");
    assertThatThrownBy(() -> source().streams().build()).hasMessageContaining("streams");
    assertThatThrownBy(() -> source().streams(stream, stream).build())
        .hasMessageContaining("streams names '" + stream + "' twice");
    assertThatThrownBy(() -> source().streams("bad key").build())
        .hasMessageContaining("stream 'bad key'");
    assertThatThrownBy(() -> source().group(null).build()).hasMessageContaining("group");
    assertThatThrownBy(() -> source().consumer("a b").build())
        .hasMessageContaining("consumer 'a b'");
    assertThatThrownBy(() -> source().batchSize(0).build())
        .hasMessageContaining("batchSize must be between 1 and 10000, was 0");
    assertThatThrownBy(() -> source().pollTimeout(Duration.ZERO).build())
        .hasMessageContaining("pollTimeout must be between 1 ms and 60 s, was PT0S");
    assertThatThrownBy(() -> source().claimIdleAfter(Duration.ofMillis(5)).build())
        .hasMessageContaining("claimIdleAfter must be between 10 ms and 24 h, was PT0.005S");
    assertThatThrownBy(() -> source().maxConnections(0).build())
        .hasMessageContaining("maxConnections must be between 1 and 1024, was 0");
    assertThatThrownBy(() -> source().lagInterval(null).build())
        .hasMessageContaining("lagInterval must be a positive duration, e.g. PT5S, was null");
    assertThatThrownBy(() -> source().connectTimeout(null).build())
        .hasMessageContaining("connectTimeout must be between 1 ms and 60 s, was null");
  }

  /**
   * The lag is what is not processed yet: entries not delivered to the group plus those delivered
   * and not acknowledged (the group's pending list); it falls as they are acknowledged, to 0.
   */
  @Test
  void theLagCountsUndeliveredAndPendingEntriesAndFallsAsTheyAreAcknowledged() {
    List<Event> events = RedisTestSupport.events("Order", 4, 40);
    publish(events);
    RecordingSink sink = RecordingSink.holding().close(); // blocks on the first entry
    RedisStreamsMessageSource source =
        source().batchSize(10).lagInterval(Duration.ofMillis(100)).build();
    sources.add(source);
    assertThat(source.lag()).as("not started").isEmpty();
    source.start(sink);

    await().atMost(WAIT).until(sink::blocked);
    assertThat(pending()).as("one batch read").isEqualTo(10);
    await().atMost(WAIT).until(() -> source.lag().orElse(-1) == 40); // lag 30 + pending 10
    sink.open();
    await().atMost(WAIT).until(() -> sink.received.size() == events.size());
    assertThat(source.lag()).hasValue(40); // lag 0 + pending 40
    sink.received.subList(0, 4).forEach(InboundMessage::acknowledge);
    await().atMost(WAIT).until(() -> source.lag().orElse(-1) == 36);
    sink.received.forEach(InboundMessage::acknowledge);
    await().atMost(WAIT).until(() -> source.lag().orElse(-1) == 0);
    source.close();
    assertThat(source.lag()).as("closed").isEmpty();
  }
}
