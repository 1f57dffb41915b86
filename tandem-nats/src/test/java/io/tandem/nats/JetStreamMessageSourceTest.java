package io.tandem.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.api.ConsumerInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.tandem.core.Event;
import io.tandem.core.InvalidMessageException;
import io.tandem.core.TandemException;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link JetStreamMessageSource} against the real nats-server, one stream and durable per test. */
class JetStreamMessageSourceTest {
  private static final Duration SHORT_ACK_WAIT = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final List<JetStreamMessageSource> sources = new ArrayList<>();
  private String prefix;
  private String stream;
  private String durable;

  @BeforeEach
  void createStream() {
    prefix = NatsTestSupport.uniquePrefix();
    stream = NatsTestSupport.createStream(prefix);
    durable = "d" + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterEach
  void deleteStream() {
    sources.forEach(JetStreamMessageSource::close);
    NatsTestSupport.deleteStream(stream); // and its consumers
  }

  private JetStreamMessageSource.Builder builder() {
    return JetStreamMessageSource.builder().url(NatsTestSupport.url()).stream(stream)
        .durable(durable);
  }

  private JetStreamMessageSource start(JetStreamMessageSource.Builder builder, MessageSink sink) {
    JetStreamMessageSource source = builder.build();
    sources.add(source);
    source.start(sink);
    return source;
  }

  private List<Event> publish(List<Event> events) {
    try (JetStreamTransport nats = NatsTestSupport.transport(SubjectRouter.byAggregate(prefix))) {
      assertThat(nats.publish(events, Duration.ofSeconds(30)))
          .allMatch(PublishOutcome::acknowledged);
    }
    return events;
  }

  private List<Event> versions(String aggregateId, int count) {
    return IntStream.rangeClosed(1, count)
        .mapToObj(v -> NatsTestSupport.event("Order", aggregateId, v))
        .toList();
  }

  private ConsumerInfo consumerInfo() throws Exception {
    return NatsTestSupport.jsm().getConsumerInfo(stream, durable);
  }

  private static List<Long> versionsOf(List<InboundMessage> messages) {
    return messages.stream().map(m -> m.decode().aggregateVersion()).toList();
  }

  /** Keeps every message it is handed; acknowledges the ones {@code ackIf} accepts at once. */
  private static final class RecordingSink implements MessageSink {
    final List<InboundMessage> received = new CopyOnWriteArrayList<>();
    private final Predicate<InboundMessage> ackIf;

    RecordingSink(Predicate<InboundMessage> ackIf) {
      this.ackIf = ackIf;
    }

    @Override
    public boolean accept(InboundMessage message) {
      received.add(message);
      if (ackIf.test(message)) {
        message.acknowledge();
      }
      return true;
    }

    int size() {
      return received.size();
    }

    void acknowledgeAll() {
      received.forEach(InboundMessage::acknowledge);
    }
  }

  @Test
  void handsOverOneSubjectsMessagesInStreamOrder() throws Exception {
    List<Event> events = publish(versions("order-1", 50));
    RecordingSink sink = new RecordingSink(m -> true);

    JetStreamMessageSource source = start(builder().batchSize(7), sink);

    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 50);
    assertThat(source.isRunning()).isTrue();
    assertThat(source.transport()).isEqualTo("nats");
    assertThat(source.describe()).contains(durable, stream, "max ack pending 256");
    assertThat(versionsOf(sink.received))
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 50).boxed().toList());
    InboundMessage first = sink.received.get(0);
    assertThat(first.decode()).isEqualTo(events.get(0));
    assertThat(first.key()).isEqualTo("order-1");
    assertThat(first.origin()).isEqualTo("nats " + stream + "/" + durable + " seq 1");
    assertThat(sink.received.get(49).origin()).endsWith(" seq 50");
    assertThat(first.rawBody()).isEqualTo(events.get(0).payload().getBytes(StandardCharsets.UTF_8));
    assertThat(first.rawHeaders())
        .containsEntry("subject", prefix + "order.order-1")
        .containsEntry("stream", stream)
        .containsEntry("stream_sequence", "1")
        .containsEntry("delivered", "1")
        .containsEntry("ce-id", events.get(0).eventId().toString());
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              ConsumerInfo info = consumerInfo();
              assertThat(info.getNumAckPending()).isZero();
              assertThat(info.getAckFloor().getStreamSequence()).isEqualTo(50);
            });
  }

  @Test
  void unacknowledgedMessagesAreRedeliveredToTheNextSourceOfTheDurable() throws Exception {
    publish(versions("order-1", 5));
    RecordingSink first = new RecordingSink(m -> m.decode().aggregateVersion() <= 2);
    JetStreamMessageSource closing = start(builder().ackWait(SHORT_ACK_WAIT), first);
    Awaitility.await().atMost(WAIT).until(() -> first.size() == 5);

    closing.close();
    assertThat(closing.isRunning()).isFalse();
    RecordingSink second = new RecordingSink(m -> true);
    start(builder().ackWait(SHORT_ACK_WAIT), second);

    Awaitility.await().atMost(WAIT).until(() -> second.size() >= 3);
    assertThat(versionsOf(second.received)).containsExactly(3L, 4L, 5L);
    assertThat(second.received)
        .allSatisfy(m -> assertThat(m.rawHeaders()).containsEntry("delivered", "2"));
  }

  @Test
  void acknowledgedMessagesAreNotRedelivered() throws Exception {
    publish(versions("order-1", 5));
    RecordingSink first = new RecordingSink(m -> true);
    JetStreamMessageSource closing = start(builder().ackWait(SHORT_ACK_WAIT), first);
    Awaitility.await().atMost(WAIT).until(() -> first.size() == 5);
    Awaitility.await().atMost(WAIT).until(() -> consumerInfo().getNumAckPending() == 0);
    closing.close();

    RecordingSink second = new RecordingSink(m -> true);
    start(builder().ackWait(SHORT_ACK_WAIT), second);

    Awaitility.await()
        .during(SHORT_ACK_WAIT.multipliedBy(2))
        .atMost(WAIT)
        .until(() -> second.size() == 0);
    publish(versions("order-2", 1)); // the source is alive: a new message still comes
    Awaitility.await().atMost(WAIT).until(() -> second.size() == 1);
    assertThat(second.received.get(0).key()).isEqualTo("order-2");
  }

  @Test
  void heldMessagesAreNotRedeliveredWhileTheirSourceRuns() throws Exception {
    publish(versions("order-1", 3));
    RecordingSink holding = new RecordingSink(m -> false);
    start(builder().ackWait(SHORT_ACK_WAIT), holding);
    Awaitility.await().atMost(WAIT).until(() -> holding.size() == 3);

    RecordingSink other = new RecordingSink(m -> true);
    start(builder().ackWait(SHORT_ACK_WAIT), other);

    // three ack waits: without the in-progress signals they would have gone to the other source
    Awaitility.await()
        .during(SHORT_ACK_WAIT.multipliedBy(3))
        .atMost(WAIT)
        .until(() -> other.size() == 0 && holding.size() == 3);
    holding.acknowledgeAll();
    Awaitility.await().atMost(WAIT).until(() -> consumerInfo().getNumAckPending() == 0);
  }

  @Test
  void maxAckPendingBoundsTheMessagesInFlight() throws Exception {
    publish(versions("order-1", 20));
    RecordingSink sink = new RecordingSink(m -> false);

    start(builder().maxAckPending(5).batchSize(10), sink);

    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 5);
    Awaitility.await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(() -> sink.size() == 5 && consumerInfo().getNumAckPending() == 5);
    sink.acknowledgeAll();
    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 10);
    assertThat(versionsOf(sink.received))
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 10).boxed().toList());
  }

  @Test
  void aBlockingSinkStopsThePullsAndWhatWaitsBehindItIsNotRedelivered() throws Exception {
    publish(versions("order-1", 20));
    Semaphore permits = new Semaphore(0);
    AtomicInteger waiting = new AtomicInteger();
    List<InboundMessage> taken = new CopyOnWriteArrayList<>();
    MessageSink full =
        message -> {
          waiting.incrementAndGet();
          permits.acquire(); // a full runner
          waiting.decrementAndGet();
          taken.add(message);
          message.acknowledge();
          return true;
        };

    // The waiting messages stay delivered only through the source's in-progress ticks (every third
    // of the ack wait); 2 s left a loaded CI machine too little slack (one redelivery seen).
    Duration ackWait = Duration.ofSeconds(3);
    start(builder().ackWait(ackWait).maxAckPending(100).batchSize(4), full);

    Awaitility.await().atMost(WAIT).until(() -> waiting.get() == 1);
    // three ack waits: no further pull, and the rest of the batch keeps its delivery
    Awaitility.await()
        .during(ackWait.multipliedBy(3))
        .atMost(WAIT)
        .until(() -> consumerInfo().getNumAckPending() == 4);
    permits.release(1000);
    Awaitility.await().atMost(WAIT).until(() -> taken.size() == 20);
    assertThat(versionsOf(taken))
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 20).boxed().toList());
    assertThat(taken).allSatisfy(m -> assertThat(m.rawHeaders()).containsEntry("delivered", "1"));
    assertThat(consumerInfo().getRedelivered()).isZero();
  }

  @Test
  void twoSourcesOfOneDurableShareTheMessagesAndLoseNoneWhenOneCloses() throws Exception {
    List<Event> events = publish(NatsTestSupport.events("Order", 10, 300));
    Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    Set<UUID> leftUnacknowledged = ConcurrentHashMap.newKeySet();
    AtomicInteger taken = new AtomicInteger();
    // the first leaves every third message unacknowledged, as a runner closed mid-work would
    RecordingSink first =
        new RecordingSink(
            m -> {
              UUID id = m.decode().eventId();
              if (taken.incrementAndGet() % 3 == 0) {
                leftUnacknowledged.add(id);
                return false;
              }
              acknowledged.add(id);
              return true;
            });
    RecordingSink second =
        new RecordingSink(
            m -> {
              acknowledged.add(m.decode().eventId());
              return true;
            });
    JetStreamMessageSource.Builder builder =
        builder().ackWait(SHORT_ACK_WAIT).maxAckPending(100).batchSize(5);
    JetStreamMessageSource leaving = start(builder, first);
    start(builder, second);

    Awaitility.await().atMost(WAIT).until(() -> first.size() >= 20 && second.size() >= 20);
    leaving.close();

    Awaitility.await().atMost(WAIT).until(() -> acknowledged.size() == 300);
    assertThat(acknowledged)
        .isEqualTo(events.stream().map(Event::eventId).collect(Collectors.toSet()));
    Set<UUID> takenBySecond =
        second.received.stream().map(m -> m.decode().eventId()).collect(Collectors.toSet());
    assertThat(leftUnacknowledged).isNotEmpty();
    assertThat(takenBySecond).containsAll(leftUnacknowledged);
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              ConsumerInfo info = consumerInfo();
              assertThat(info.getNumAckPending()).isZero();
              assertThat(info.getNumPending()).isZero();
            });
  }

  @Test
  void aSinkThatRefusesStopsTheSourceAndLeavesTheMessageUnacknowledged() throws Exception {
    publish(versions("order-1", 3));
    List<InboundMessage> taken = new CopyOnWriteArrayList<>();
    MessageSink stopping =
        message -> {
          if (taken.size() == 1) {
            return false;
          }
          taken.add(message);
          message.acknowledge();
          return true;
        };
    JetStreamMessageSource refused = start(builder().ackWait(SHORT_ACK_WAIT), stopping);

    Awaitility.await().atMost(WAIT).until(() -> !refused.isRunning());
    assertThat(taken).hasSize(1);
    refused.close();
    RecordingSink next = new RecordingSink(m -> true);
    start(builder().ackWait(SHORT_ACK_WAIT), next);
    Awaitility.await().atMost(WAIT).until(() -> next.size() == 2);
    assertThat(versionsOf(next.received)).containsExactly(2L, 3L);
  }

  @Test
  void anInvalidMessageIsHandedOverAndFailsOnlyWhenDecoded() throws Exception {
    Headers headers = new Headers().put("ce-partitionkey", "K%C3%B6ln");
    NatsTestSupport.admin()
        .jetStream()
        .publish(
            NatsMessage.builder()
                .subject(prefix + "order.broken")
                .headers(headers)
                .data("not json".getBytes(StandardCharsets.UTF_8))
                .build());
    RecordingSink sink = new RecordingSink(m -> true);

    start(builder(), sink);

    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 1);
    InboundMessage message = sink.received.get(0);
    assertThat(message.key()).isEqualTo("Köln");
    assertThat(message.rawBody()).isEqualTo("not json".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(message::decode)
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("stream " + stream + " sequence 1")
        .hasMessageContaining("specversion");
  }

  @Test
  void aDeletedDurableIsCreatedAgainAndConsumptionGoesOn() throws Exception {
    publish(versions("order-1", 3));
    RecordingSink sink = new RecordingSink(m -> true);
    start(builder().reconnectDelay(Duration.ofMillis(200)), sink);
    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 3);
    Awaitility.await().atMost(WAIT).until(() -> consumerInfo().getNumAckPending() == 0);

    NatsTestSupport.jsm().deleteConsumer(stream, durable); // an operator's mistake
    publish(versions("order-2", 2));

    // created again, delivering everything from the start: the inbox drops what it applied
    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 8);
    assertThat(sink.received.subList(3, 8))
        .extracting(InboundMessage::key)
        .containsExactly("order-1", "order-1", "order-1", "order-2", "order-2");
  }

  @Test
  void startFailsWhenTheDurableIsAPushConsumer() throws Exception {
    NatsTestSupport.jsm()
        .addOrUpdateConsumer(
            stream,
            io.nats.client.api.ConsumerConfiguration.builder()
                .durable(durable)
                .deliverSubject("push." + durable)
                .build());
    JetStreamMessageSource source = builder().build();
    sources.add(source);

    assertThatThrownBy(() -> source.start(m -> true))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("cannot consume durable " + durable)
        .hasMessageContaining("JetStream error");
    assertThat(source.isRunning()).isFalse();
  }

  @Test
  void startFailsWithTheServersReasonWhenTheStreamDoesNotExist() {
    JetStreamMessageSource source =
        JetStreamMessageSource.builder().url(NatsTestSupport.url()).stream("NO_SUCH_" + durable)
            .durable(durable)
            .build();
    sources.add(source);

    assertThatThrownBy(() -> source.start(m -> true))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("NO_SUCH_" + durable)
        .hasMessageContaining("stream not found");
    assertThat(source.isRunning()).isFalse();
  }

  @Test
  void ensureStreamCreatesAMissingStream() throws Exception {
    String otherPrefix = NatsTestSupport.uniquePrefix();
    String created = "T_" + durable.toUpperCase(java.util.Locale.ROOT);
    try {
      RecordingSink sink = new RecordingSink(m -> true);
      start(
          JetStreamMessageSource.builder().url(NatsTestSupport.url()).stream(created)
              .durable(durable)
              .ensureStream(otherPrefix + ">"),
          sink);
      try (JetStreamTransport nats =
          NatsTestSupport.transport(SubjectRouter.byAggregate(otherPrefix))) {
        assertThat(nats.publish(versions("order-1", 1), Duration.ofSeconds(10)))
            .allMatch(PublishOutcome::acknowledged);
      }
      Awaitility.await().atMost(WAIT).until(() -> sink.size() == 1);
    } finally {
      sources.forEach(JetStreamMessageSource::close);
      NatsTestSupport.deleteStream(created);
    }
  }

  @Test
  void theBuilderNamesTheBadParameter() {
    assertThatThrownBy(() -> JetStreamMessageSource.builder().stream("S").durable("d").build())
        .hasMessageContaining("url");
    assertThatThrownBy(() -> builder().stream("A.B").build()).hasMessageContaining("stream 'A.B'");
    assertThatThrownBy(() -> builder().durable("bill ing").build())
        .hasMessageContaining("durable 'bill ing'");
    assertThatThrownBy(() -> builder().filterSubjects("a.>.b").build())
        .hasMessageContaining("filterSubjects 'a.>.b'");
    assertThatThrownBy(() -> builder().filterSubjects("a.>", "a.>").build())
        .hasMessageContaining("filterSubjects must not repeat");
    assertThatThrownBy(() -> builder().ackWait(Duration.ZERO).build())
        .hasMessageContaining("ackWait must be a positive duration, was PT0S");
    assertThatThrownBy(() -> builder().maxAckPending(0).build())
        .hasMessageContaining("maxAckPending must be at least 1, was 0");
    assertThatThrownBy(() -> builder().batchSize(0).build())
        .hasMessageContaining("batchSize must be at least 1, was 0");
    assertThatThrownBy(() -> builder().maxDeliver(0).build())
        .hasMessageContaining("maxDeliver must be at least 1, or UNLIMITED (-1), was 0");
    assertThatThrownBy(() -> builder().ensureStream("").build())
        .hasMessageContaining("ensureStream subjectFilter");
    assertThatThrownBy(() -> builder().reconnectDelay(null).build())
        .hasMessageContaining("reconnectDelay");
    assertThatThrownBy(() -> builder().lagInterval(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("lagInterval must be a positive duration, e.g. PT5S, was PT-1S");
    assertThatThrownBy(() -> builder().url("nats://u:secret@host:notaport").build())
        .hasMessageContaining("url 'nats://u:***@host:notaport' is refused")
        .hasMessageNotContaining("secret");
  }

  /**
   * The lag is what is not processed yet: messages not delivered (beyond max ack pending) plus
   * those delivered and not acknowledged; it falls as they are acknowledged, to 0.
   */
  @Test
  void theLagCountsUndeliveredAndUnacknowledgedMessagesAndFallsAsTheyAreAcknowledged() {
    List<Event> events = publish(versions("order-lag", 40));
    RecordingSink sink = new RecordingSink(m -> false); // holds what it is handed
    JetStreamMessageSource source =
        builder().maxAckPending(10).batchSize(10).lagInterval(Duration.ofMillis(100)).build();
    sources.add(source);
    assertThat(source.lag()).as("not started").isEmpty();
    source.start(sink);

    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 10);
    Awaitility.await().atMost(WAIT).until(() -> source.lag().orElse(-1) == 40); // 30 + 10 held
    sink.received.subList(0, 4).forEach(InboundMessage::acknowledge);
    Awaitility.await().atMost(WAIT).until(() -> sink.size() == 14);
    Awaitility.await().atMost(WAIT).until(() -> source.lag().orElse(-1) == 36);
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () -> {
              sink.acknowledgeAll(); // each one once: a second acknowledge does nothing
              return sink.size() == events.size();
            });
    sink.acknowledgeAll();
    Awaitility.await().atMost(WAIT).until(() -> source.lag().orElse(-1) == 0);
    source.close();
    assertThat(source.lag()).as("closed").isEmpty();
  }
}
