package io.tandem.nats;

import static io.tandem.nats.NatsTestSupport.SOURCE;
import static io.tandem.nats.NatsTestSupport.TRACEPARENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Message;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JetStreamTransportTest {
  private final NatsCloudEventsCodec codec = NatsCloudEventsCodec.create();
  private final List<String> streams = new ArrayList<>();

  @AfterEach
  void deleteStreams() {
    streams.forEach(NatsTestSupport::deleteStream);
  }

  private String stream(String prefix) {
    String name = NatsTestSupport.createStream(prefix);
    streams.add(name);
    return name;
  }

  private static String header(Message message, String name) {
    String value = message.getHeaders().getFirst(name);
    assertThat(value).as("header %s", name).isNotNull();
    return value;
  }

  @Test
  void publishesABatchOf500AsBinaryCloudEventsOneSubjectPerAggregate() {
    String prefix = NatsTestSupport.uniquePrefix();
    String stream = stream(prefix);
    List<Event> events = NatsTestSupport.events("Order", 7, 500);

    List<PublishOutcome> outcomes;
    try (JetStreamTransport nats = NatsTestSupport.transport(SubjectRouter.byAggregate(prefix))) {
      outcomes = nats.publish(events, Duration.ofSeconds(30));
    }

    assertThat(outcomes)
        .extracting(PublishOutcome::eventId)
        .containsExactlyElementsOf(events.stream().map(Event::eventId).toList());
    assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());

    List<Message> messages = NatsTestSupport.read(stream, events.size());
    assertThat(messages).hasSize(events.size());
    Map<UUID, Event> byId =
        events.stream().collect(Collectors.toMap(Event::eventId, Function.identity()));
    for (Message message : messages) {
      Event sent = byId.get(UUID.fromString(header(message, "ce-id")));
      assertThat(sent).isNotNull();
      assertThat(message.getSubject()).isEqualTo(prefix + "order." + sent.aggregateId());
      assertThat(header(message, "Nats-Msg-Id")).isEqualTo(sent.eventId().toString());
      assertThat(header(message, "ce-specversion")).isEqualTo("1.0");
      assertThat(header(message, "ce-type")).isEqualTo("OrderPlaced");
      assertThat(header(message, "ce-source")).isEqualTo(SOURCE);
      assertThat(header(message, "ce-subject")).isEqualTo(sent.aggregateId());
      assertThat(OffsetDateTime.parse(header(message, "ce-time")).toInstant())
          .isEqualTo(sent.occurredAt());
      assertThat(header(message, "ce-partitionkey")).isEqualTo(sent.aggregateId());
      assertThat(header(message, "ce-sequence")).isEqualTo(Long.toString(sent.aggregateVersion()));
      assertThat(header(message, "ce-aggregatetype")).isEqualTo("Order");
      assertThat(header(message, "ce-schemaversion")).isEqualTo("2");
      assertThat(header(message, "ce-traceparent")).isEqualTo(TRACEPARENT);
      assertThat(header(message, "ce-tracestate")).isEqualTo("vendor=abc");
      assertThat(header(message, "ce-tenant")).isEqualTo("acme");
      assertThat(header(message, "ce-correlationid")).isEqualTo("checkout-" + sent.aggregateId());
      assertThat(header(message, "ce-origin")).isEqualTo("tests");
      assertThat(header(message, "content-type")).isEqualTo("application/json");
      assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo(sent.payload());
      assertThat(codec.decode(message)).isEqualTo(sent);
    }
    // Per aggregate, the stream holds the versions in order.
    Map<String, List<Long>> versions = new HashMap<>();
    for (Message message : messages) {
      versions
          .computeIfAbsent(message.getSubject(), s -> new ArrayList<>())
          .add(Long.parseLong(header(message, "ce-sequence")));
    }
    assertThat(versions).hasSize(7);
    versions.values().forEach(list -> assertThat(list).isSorted().doesNotHaveDuplicates());
  }

  @Test
  void republishingAnEventIsDeduplicatedByTheStreamAndBothPublishesCountAsAcknowledged() {
    String prefix = NatsTestSupport.uniquePrefix();
    String stream = stream(prefix);
    List<Event> batch = NatsTestSupport.events("Order", 2, 4);

    try (JetStreamTransport nats = NatsTestSupport.transport(SubjectRouter.byAggregate(prefix))) {
      List<PublishOutcome> first = nats.publish(batch, Duration.ofSeconds(10));
      List<PublishOutcome> again = nats.publish(batch, Duration.ofSeconds(10));
      List<PublishOutcome> single = nats.publish(List.of(batch.get(0)), Duration.ofSeconds(10));

      assertThat(first).allMatch(PublishOutcome::acknowledged);
      assertThat(again).allMatch(PublishOutcome::acknowledged);
      assertThat(single).allMatch(PublishOutcome::acknowledged);
    }

    assertThat(NatsTestSupport.messageCount(stream)).isEqualTo(4);
    assertThat(NatsTestSupport.read(stream, 4))
        .extracting(m -> m.getHeaders().getFirst("ce-id"))
        .containsExactlyElementsOf(batch.stream().map(e -> e.eventId().toString()).toList());
  }

  @Test
  void aSubjectWithoutAStreamIsPermanentlyUnroutableWhileTheRestIsAcknowledged() {
    String prefix = NatsTestSupport.uniquePrefix();
    String stream = stream(prefix);
    String nowhere = NatsTestSupport.uniquePrefix() + "nowhere";
    Event good = NatsTestSupport.event("Order", "order-1", 1);
    Event lost = NatsTestSupport.event("Refund", "order-1", 2);
    SubjectRouter router = e -> e.aggregateType().equals("Order") ? prefix + "orders" : nowhere;

    List<PublishOutcome> outcomes;
    try (JetStreamTransport nats = NatsTestSupport.transport(router)) {
      outcomes = nats.publish(List.of(good, lost), Duration.ofSeconds(10));
    }

    assertThat(outcomes.get(0).acknowledged()).isTrue();
    PublishOutcome failed = outcomes.get(1);
    assertThat(failed.acknowledged()).isFalse();
    assertThat(failed.failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(failed.failure().retriable()).isFalse();
    assertThat(failed.failure().getMessage())
        .contains(lost.eventId().toString(), nowhere, "No Responders");
    assertThat(NatsTestSupport.messageCount(stream)).isEqualTo(1);
  }

  @Test
  void anIllegalSubjectFromTheRouterIsUnroutable() {
    Event event = NatsTestSupport.event("Order", "order-1", 1);

    List<PublishOutcome> outcomes;
    try (JetStreamTransport nats = NatsTestSupport.transport(e -> "orders.*")) {
      outcomes = nats.publish(List.of(event), Duration.ofSeconds(5));
    }

    assertThat(outcomes.get(0).failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(outcomes.get(0).failure().getMessage()).contains("'orders.*'", "wildcard");
  }

  @Test
  void anUnreachableServerGivesRetriableFailuresWithinTheTimeoutAndBuildDoesNotConnect() {
    List<Event> events = NatsTestSupport.events("Order", 3, 20);
    long started = System.nanoTime();

    List<PublishOutcome> outcomes;
    try (JetStreamTransport nats =
        JetStreamTransport.builder()
            .url("nats://127.0.0.1:" + NatsTestSupport.closedPort())
            .source(SOURCE)
            .build()) {
      outcomes = nats.publish(events, Duration.ofSeconds(2));
    }

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    assertThat(outcomes).hasSize(events.size());
    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.acknowledged()).isFalse();
              assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
              assertThat(o.failure().retriable()).isTrue();
            });
  }

  @Test
  void aServerThatNeverAnswersCannotHoldAPublishPastItsTimeout() throws Exception {
    // A loopback socket that accepts TCP connections but never speaks NATS.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        JetStreamTransport nats =
            JetStreamTransport.builder()
                .url("nats://127.0.0.1:" + silent.getLocalPort())
                .source(SOURCE)
                .connectTimeout(Duration.ofSeconds(30))
                .build()) {
      long started = System.nanoTime();
      List<PublishOutcome> outcomes =
          nats.publish(List.of(NatsTestSupport.event("Order", "o", 1)), Duration.ofMillis(700));

      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(2000));
      assertThat(outcomes.get(0).failure().retriable())
          .as(outcomes.get(0).failure().getMessage())
          .isTrue();
    }
  }

  @Test
  void aMessageOverTheServersMaxPayloadIsRecordTooLargeAndTheConnectionSurvives() {
    String prefix = NatsTestSupport.uniquePrefix();
    String stream = stream(prefix);
    String oneMebibyte = "{\"blob\":\"" + "x".repeat(1024 * 1024 - 11) + "\"}";
    Event big =
        NatsTestSupport.event("Order", "order-1", 1).toBuilder().payload(oneMebibyte).build();
    Event small = NatsTestSupport.event("Order", "order-1", 2);

    try (JetStreamTransport nats = NatsTestSupport.transport(SubjectRouter.byAggregate(prefix))) {
      List<PublishOutcome> outcomes = nats.publish(List.of(big, small), Duration.ofSeconds(10));
      List<PublishOutcome> later =
          nats.publish(
              List.of(NatsTestSupport.event("Order", "order-1", 3)), Duration.ofSeconds(10));

      assertThat(outcomes.get(0).failure().errorClass()).isEqualTo(ErrorClass.RECORD_TOO_LARGE);
      assertThat(outcomes.get(0).failure().getMessage()).contains("max_payload");
      assertThat(outcomes.get(1).acknowledged()).isTrue();
      assertThat(later.get(0).acknowledged()).isTrue();
    }
    assertThat(NatsTestSupport.messageCount(stream)).isEqualTo(2);
  }

  @Test
  void aMessageOverTheStreamsMaximumSizeIsRecordTooLarge() {
    String prefix = NatsTestSupport.uniquePrefix();
    String name =
        NatsTestSupport.createStream(
            prefix, StreamConfiguration.builder().maximumMessageSize(2048));
    streams.add(name);
    Event big =
        NatsTestSupport.event("Order", "order-1", 1).toBuilder()
            .payload("{\"blob\":\"" + "x".repeat(4096) + "\"}")
            .build();

    List<PublishOutcome> outcomes;
    try (JetStreamTransport nats = NatsTestSupport.transport(SubjectRouter.byAggregate(prefix))) {
      outcomes = nats.publish(List.of(big), Duration.ofSeconds(10));
    }

    assertThat(outcomes.get(0).failure().errorClass()).isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(outcomes.get(0).failure().retriable()).isFalse();
    assertThat(NatsTestSupport.messageCount(name)).isZero();
  }

  @Test
  void ensureStreamCreatesAMissingFileStreamWithTheDuplicateWindow() throws Exception {
    String prefix = NatsTestSupport.uniquePrefix();
    String name = "T_ENSURE_" + prefix.substring(1, prefix.length() - 1).toUpperCase();
    streams.add(name);

    try (JetStreamTransport nats =
        JetStreamTransport.builder()
            .url(NatsTestSupport.url())
            .source(SOURCE)
            .subjectRouter(SubjectRouter.byAggregate(prefix))
            .ensureStream(name, prefix + ">")
            .duplicateWindow(Duration.ofSeconds(45))
            .build()) {
      assertThat(nats.publish(NatsTestSupport.events("Order", 1, 3), Duration.ofSeconds(10)))
          .allMatch(PublishOutcome::acknowledged);
    }

    StreamInfo info = NatsTestSupport.jsm().getStreamInfo(name);
    assertThat(info.getConfiguration().getStorageType()).isEqualTo(StorageType.File);
    assertThat(info.getConfiguration().getDuplicateWindow()).isEqualTo(Duration.ofSeconds(45));
    assertThat(info.getConfiguration().getSubjects()).containsExactly(prefix + ">");
    assertThat(info.getStreamState().getMsgCount()).isEqualTo(3);
  }

  @Test
  void concurrentPublishesShareOneConnection() throws Exception {
    String prefix = NatsTestSupport.uniquePrefix();
    String stream = stream(prefix);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (JetStreamTransport nats = NatsTestSupport.transport(SubjectRouter.byAggregate(prefix))) {
      List<Future<List<PublishOutcome>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        List<Event> batch = NatsTestSupport.events("Order" + t, 5, 250);
        results.add(pool.submit(() -> nats.publish(batch, Duration.ofSeconds(30))));
      }
      for (Future<List<PublishOutcome>> result : results) {
        assertThat(result.get()).hasSize(250).allMatch(PublishOutcome::acknowledged);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(NatsTestSupport.messageCount(stream)).isEqualTo(1000);
  }

  @Test
  void aClosedTransportRefusesToPublishAndCloseIsPrompt() {
    String prefix = NatsTestSupport.uniquePrefix();
    stream(prefix);
    JetStreamTransport nats = NatsTestSupport.transport(SubjectRouter.byAggregate(prefix));
    assertThat(nats.publish(List.of(NatsTestSupport.event("Order", "o", 1)), Duration.ofSeconds(5)))
        .allMatch(PublishOutcome::acknowledged);

    long started = System.nanoTime();
    nats.close();
    nats.close();

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    assertThatThrownBy(
            () ->
                nats.publish(
                    List.of(NatsTestSupport.event("Order", "o", 2)), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void builderRefusesMissingOrInvalidSettings() {
    assertThatThrownBy(() -> JetStreamTransport.builder().source("/s").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url must not be blank");
    assertThatThrownBy(() -> JetStreamTransport.builder().url(NatsTestSupport.url()).build())
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(
            () -> JetStreamTransport.builder().url("nats://host:notaport").source("/s").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url 'nats://host:notaport'");
    assertThatThrownBy(
            () ->
                JetStreamTransport.builder()
                    .url(NatsTestSupport.url())
                    .source("/s")
                    .subjectRouter(null)
                    .build())
        .hasMessageContaining("subjectRouter must not be null");
    assertThatThrownBy(
            () ->
                JetStreamTransport.builder()
                    .url(NatsTestSupport.url())
                    .source("/s")
                    .ensureStream("ORDERS.V1", "tandem.order.>")
                    .build())
        .hasMessageContaining("ensureStream streamName 'ORDERS.V1' contains '.'");
    assertThatThrownBy(
            () ->
                JetStreamTransport.builder()
                    .url(NatsTestSupport.url())
                    .source("/s")
                    .ensureStream("ORDERS", "tandem..order")
                    .build())
        .hasMessageContaining("ensureStream subjectFilter 'tandem..order' has an empty token");
    assertThatThrownBy(
            () ->
                JetStreamTransport.builder()
                    .url(NatsTestSupport.url())
                    .source("/s")
                    .duplicateWindow(Duration.ZERO)
                    .build())
        .hasMessageContaining("duplicateWindow must be a positive duration, was PT0S");
    assertThatThrownBy(
            () ->
                JetStreamTransport.builder()
                    .url(NatsTestSupport.url())
                    .source("/s")
                    .streamReplicas(7)
                    .build())
        .hasMessageContaining("streamReplicas must be between 1 and 5, was 7");
    assertThatThrownBy(
            () ->
                JetStreamTransport.builder()
                    .url(NatsTestSupport.url())
                    .source("/s")
                    .connectTimeout(Duration.ofSeconds(-1))
                    .build())
        .hasMessageContaining("connectTimeout must be a positive duration, was PT-1S");
    try (JetStreamTransport nats =
        JetStreamTransport.builder().url(NatsTestSupport.url()).source("/s").build()) {
      assertThat(nats.name()).isEqualTo("nats");
      assertThatThrownBy(() -> nats.publish(List.of(), Duration.ZERO))
          .hasMessageContaining("timeout must be a positive duration, was PT0S");
      assertThat(nats.publish(List.of(), Duration.ofSeconds(1))).isEmpty();
    }
  }
}
