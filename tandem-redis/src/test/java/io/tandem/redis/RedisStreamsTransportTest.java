package io.tandem.redis;

import static io.tandem.redis.RedisTestSupport.SOURCE;
import static io.tandem.redis.RedisTestSupport.TRACEPARENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.resps.StreamEntry;

class RedisStreamsTransportTest {
  private final RedisCloudEventsCodec codec = RedisCloudEventsCodec.create();
  private final String prefix = RedisTestSupport.uniquePrefix();

  @AfterEach
  void deleteKeys() {
    RedisTestSupport.deleteKeys(prefix);
  }

  private static List<StreamEntry> entries(String key) {
    return RedisTestSupport.admin().xrange(key, "-", "+");
  }

  @Test
  void publishesABatchOf500AsStreamEntriesWithTheCloudEventsFields() {
    String key = prefix + "order";
    List<Event> events = RedisTestSupport.events("Order", 7, 500);

    List<PublishOutcome> outcomes;
    try (RedisStreamsTransport redis =
        RedisTestSupport.transport(StreamRouter.byAggregateType(prefix))) {
      outcomes = redis.publish(events, Duration.ofSeconds(30));
    }

    assertThat(outcomes)
        .extracting(PublishOutcome::eventId)
        .containsExactlyElementsOf(events.stream().map(Event::eventId).toList());
    assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());

    List<StreamEntry> entries = entries(key);
    assertThat(entries).hasSize(events.size());
    for (int i = 0; i < events.size(); i++) {
      Event sent = events.get(i); // one pipeline on one connection: the stream keeps batch order
      Map<String, String> expected = new LinkedHashMap<>();
      expected.put("ce_specversion", "1.0");
      expected.put("ce_id", sent.eventId().toString());
      expected.put("ce_source", SOURCE);
      expected.put("ce_type", "OrderPlaced");
      expected.put("ce_subject", sent.aggregateId());
      expected.put("ce_time", sent.occurredAt().toString());
      expected.put("ce_partitionkey", sent.aggregateId());
      expected.put("ce_sequence", Long.toString(sent.aggregateVersion()));
      expected.put("ce_aggregatetype", "Order");
      expected.put("ce_schemaversion", "2");
      expected.put("ce_traceparent", TRACEPARENT);
      expected.put("ce_tracestate", "vendor=abc");
      expected.put("ce_tenant", "acme");
      expected.put("ce_correlationid", "checkout-" + sent.aggregateId());
      expected.put("ce_origin", "tests");
      expected.put("datacontenttype", "application/json");
      expected.put("data", sent.payload());
      assertThat(entries.get(i).getFields()).containsExactlyInAnyOrderEntriesOf(expected);
      assertThat(codec.decode(entries.get(i))).isEqualTo(sent);
    }
  }

  @Test
  void aKeyThatIsNotAStreamIsPermanentlyUnroutableWhileTheRestOfTheBatchIsAcknowledged() {
    RedisTestSupport.admin().set(prefix + "refund", "not a stream");
    List<Event> events = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      events.add(RedisTestSupport.event(i % 3 == 0 ? "Refund" : "Order", "order-1", i));
    }

    List<PublishOutcome> outcomes;
    try (RedisStreamsTransport redis =
        RedisTestSupport.transport(StreamRouter.byAggregateType(prefix))) {
      outcomes = redis.publish(events, Duration.ofSeconds(10));
    }

    for (int i = 0; i < events.size(); i++) {
      PublishOutcome outcome = outcomes.get(i);
      if (events.get(i).aggregateType().equals("Refund")) {
        assertThat(outcome.acknowledged()).isFalse();
        assertThat(outcome.failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
        assertThat(outcome.failure().retriable()).isFalse();
        assertThat(outcome.failure().getMessage())
            .contains("WRONGTYPE", prefix + "refund", events.get(i).eventId().toString());
      } else {
        assertThat(outcome.acknowledged()).as(outcome.toString()).isTrue();
      }
    }
    assertThat(entries(prefix + "order")).hasSize(7);
    assertThat(RedisTestSupport.admin().get(prefix + "refund")).isEqualTo("not a stream");
  }

  @Test
  void anIllegalKeyFromTheRouterIsUnroutable() {
    Event event = RedisTestSupport.event("Order", "order-1", 1);

    List<PublishOutcome> outcomes;
    try (RedisStreamsTransport redis = RedisTestSupport.transport(e -> prefix + "bad key")) {
      outcomes = redis.publish(List.of(event), Duration.ofSeconds(5));
    }

    assertThat(outcomes.get(0).failure().errorClass()).isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(outcomes.get(0).failure().getMessage()).contains("whitespace");
  }

  @Test
  void anUnreachableServerGivesRetriableFailuresWithinTheTimeoutAndBuildDoesNotConnect() {
    List<Event> events = RedisTestSupport.events("Order", 3, 20);
    long started = System.nanoTime();

    List<PublishOutcome> outcomes;
    try (RedisStreamsTransport redis =
        RedisStreamsTransport.builder()
            .uri("redis://127.0.0.1:" + RedisTestSupport.closedPort())
            .source(SOURCE)
            .build()) {
      outcomes = redis.publish(events, Duration.ofSeconds(2));
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
  void aServerThatNeverAnswersHoldsAPublishAtMostItsTimeoutPlusTheConnectTimeout()
      throws Exception {
    // A loopback socket that accepts TCP connections but never speaks RESP.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        RedisStreamsTransport redis =
            RedisStreamsTransport.builder()
                .uri("redis://127.0.0.1:" + silent.getLocalPort())
                .source(SOURCE)
                .connectTimeout(Duration.ofMillis(300))
                .build()) {
      long started = System.nanoTime();
      List<PublishOutcome> outcomes =
          redis.publish(List.of(RedisTestSupport.event("Order", "o", 1)), Duration.ofMillis(500));

      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1500));
      assertThat(outcomes.get(0).failure().retriable())
          .as(outcomes.get(0).failure().getMessage())
          .isTrue();
    }
  }

  @Test
  void repliesThatDoNotComeInTimeAreARetriableTimeout() {
    String key = prefix + "order";
    try (RedisStreamsTransport redis =
        RedisTestSupport.transport(StreamRouter.byAggregateType(prefix))) {
      assertThat(
              redis.publish(
                  List.of(RedisTestSupport.event("Order", "o", 1)), Duration.ofSeconds(5)))
          .allMatch(PublishOutcome::acknowledged);
      // Redis holds every write command (XADD) until the pause ends; reads (PING) still pass.
      RedisTestSupport.admin().sendCommand(Protocol.Command.CLIENT, "PAUSE", "1500", "WRITE");
      try {
        long started = System.nanoTime();
        List<PublishOutcome> outcomes =
            redis.publish(List.of(RedisTestSupport.event("Order", "o", 2)), Duration.ofMillis(400));

        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .isLessThan(Duration.ofMillis(1400));
        assertThat(outcomes.get(0).failure().errorClass()).isEqualTo(ErrorClass.TIMEOUT);
        assertThat(outcomes.get(0).failure().retriable()).isTrue();
      } finally {
        RedisTestSupport.admin().sendCommand(Protocol.Command.CLIENT, "UNPAUSE");
      }
      // The connection that timed out was discarded; the next publish works.
      assertThat(
              redis.publish(
                  List.of(RedisTestSupport.event("Order", "o", 3)), Duration.ofSeconds(5)))
          .allMatch(PublishOutcome::acknowledged);
    }
    assertThat(entries(key)).extracting(e -> e.getFields().get("ce_sequence")).contains("1", "3");
  }

  @Test
  void concurrentPublishesFromFourThreadsLoseNothingAndKeepEachAggregatesOrder() throws Exception {
    String key = prefix + "all";
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (RedisStreamsTransport redis = RedisTestSupport.transport(StreamRouter.fixed(key))) {
      List<Future<List<PublishOutcome>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        results.add(
            pool.submit(
                () -> {
                  List<PublishOutcome> all = new ArrayList<>();
                  for (int batch = 0; batch < 5; batch++) {
                    List<Event> events = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                      int n = batch * 50 + i;
                      events.add(
                          RedisTestSupport.event("Order", "t" + thread + "-" + n % 5, n / 5 + 1));
                    }
                    all.addAll(redis.publish(events, Duration.ofSeconds(30)));
                  }
                  return all;
                }));
      }
      for (Future<List<PublishOutcome>> result : results) {
        assertThat(result.get()).hasSize(250).allMatch(PublishOutcome::acknowledged);
      }
    } finally {
      pool.shutdownNow();
    }

    List<StreamEntry> entries = entries(key);
    assertThat(entries).hasSize(1000);
    assertThat(entries).extracting(e -> e.getFields().get("ce_id")).doesNotHaveDuplicates();
    Map<String, List<Long>> versions = new HashMap<>();
    for (StreamEntry entry : entries) {
      versions
          .computeIfAbsent(entry.getFields().get("ce_subject"), s -> new ArrayList<>())
          .add(Long.parseLong(entry.getFields().get("ce_sequence")));
    }
    assertThat(versions).hasSize(20);
    versions.values().forEach(v -> assertThat(v).hasSize(50).isSorted().doesNotHaveDuplicates());
  }

  @Test
  void streamsAreNeverTrimmedByDefaultAndApproximatelyWithMaxLength() {
    List<Event> events = RedisTestSupport.events("Order", 5, 1000);
    try (RedisStreamsTransport untrimmed =
            RedisTestSupport.transport(StreamRouter.fixed(prefix + "all"));
        RedisStreamsTransport trimmed =
            RedisStreamsTransport.builder()
                .uri(RedisTestSupport.uri())
                .source(SOURCE)
                .streamRouter(StreamRouter.fixed(prefix + "recent"))
                .maxLength(100)
                .build()) {
      assertThat(untrimmed.publish(events, Duration.ofSeconds(30)))
          .allMatch(PublishOutcome::acknowledged);
      assertThat(trimmed.publish(events, Duration.ofSeconds(30)))
          .allMatch(PublishOutcome::acknowledged);
    }

    assertThat(RedisTestSupport.admin().xlen(prefix + "all")).isEqualTo(1000);
    assertThat(RedisTestSupport.admin().xlen(prefix + "recent")).isBetween(100L, 999L);
  }

  @Test
  void waitingForReplicasThatDoNotExistFailsRetriablyAfterTheEntriesWereAdded() {
    String key = prefix + "order";
    List<Event> events = RedisTestSupport.events("Order", 2, 4);

    List<PublishOutcome> outcomes;
    try (RedisStreamsTransport redis =
        RedisStreamsTransport.builder()
            .uri(RedisTestSupport.uri())
            .source(SOURCE)
            .streamRouter(StreamRouter.byAggregateType(prefix))
            .waitForReplicas(1)
            .build()) {
      outcomes = redis.publish(events, Duration.ofMillis(800));
    }

    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.NOT_ENOUGH_REPLICAS);
              assertThat(o.failure().retriable()).isTrue();
              assertThat(o.failure().getMessage()).contains("reached 0 of 1 replicas");
            });
    assertThat(entries(key)).hasSize(4); // at least once: a retry adds them again
  }

  @Test
  void aClosedTransportRefusesToPublishAndCloseIsPrompt() {
    RedisStreamsTransport redis = RedisTestSupport.transport(StreamRouter.byAggregateType(prefix));
    assertThat(
            redis.publish(List.of(RedisTestSupport.event("Order", "o", 1)), Duration.ofSeconds(5)))
        .allMatch(PublishOutcome::acknowledged);

    long started = System.nanoTime();
    redis.close();
    redis.close();

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    assertThatThrownBy(
            () ->
                redis.publish(
                    List.of(RedisTestSupport.event("Order", "o", 2)), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void builderRefusesMissingOrInvalidSettings() {
    assertThatThrownBy(() -> RedisStreamsTransport.builder().source("/s").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri must not be blank");
    assertThatThrownBy(() -> RedisStreamsTransport.builder().uri("http://x:1").source("/s").build())
        .hasMessageContaining("uri 'http://x:1' must start with redis:// or rediss://");
    assertThatThrownBy(
            () -> RedisStreamsTransport.builder().uri("redis://h:1/db").source("/s").build())
        .hasMessageContaining("uri 'redis://h:1/db' does not end with a database number");
    assertThatThrownBy(() -> RedisStreamsTransport.builder().uri(RedisTestSupport.uri()).build())
        .hasMessageContaining("source must not be blank");
    assertThatThrownBy(
            () ->
                RedisStreamsTransport.builder()
                    .uri(RedisTestSupport.uri())
                    .source("/s")
                    .streamRouter(null)
                    .build())
        .hasMessageContaining("streamRouter must not be null");
    assertThatThrownBy(
            () ->
                RedisStreamsTransport.builder()
                    .uri(RedisTestSupport.uri())
                    .source("/s")
                    .maxLength(-5)
                    .build())
        .hasMessageContaining("maxLength must be positive (or 0 for no trimming), was -5");
    assertThatThrownBy(
            () ->
                RedisStreamsTransport.builder()
                    .uri(RedisTestSupport.uri())
                    .source("/s")
                    .waitForReplicas(-1)
                    .build())
        .hasMessageContaining("waitForReplicas must be 0 or more, was -1");
    assertThatThrownBy(
            () ->
                RedisStreamsTransport.builder()
                    .uri(RedisTestSupport.uri())
                    .source("/s")
                    .maxConnections(0)
                    .build())
        .hasMessageContaining("maxConnections must be between 1 and 1024, was 0");
    assertThatThrownBy(
            () ->
                RedisStreamsTransport.builder()
                    .uri(RedisTestSupport.uri())
                    .source("/s")
                    .connectTimeout(Duration.ZERO)
                    .build())
        .hasMessageContaining("connectTimeout must be between 1 ms and 60 s, was PT0S");
    try (RedisStreamsTransport redis =
        RedisStreamsTransport.builder().uri(RedisTestSupport.uri()).source("/s").build()) {
      assertThat(redis.name()).isEqualTo("redis");
      assertThatThrownBy(() -> redis.publish(List.of(), Duration.ZERO))
          .hasMessageContaining("timeout must be a positive duration, was PT0S");
      assertThat(redis.publish(List.of(), Duration.ofSeconds(1))).isEmpty();
    }
  }
}
