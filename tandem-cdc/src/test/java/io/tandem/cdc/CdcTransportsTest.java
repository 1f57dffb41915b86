package io.tandem.cdc;

import static io.tandem.cdc.CdcTestSupport.append;
import static io.tandem.cdc.CdcTestSupport.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.Transport;
import io.tandem.nats.JetStreamMessageSource;
import io.tandem.nats.JetStreamTransport;
import io.tandem.nats.SubjectRouter;
import io.tandem.outbox.OutboxRelay;
import io.tandem.rabbitmq.ExchangeRouter;
import io.tandem.rabbitmq.RabbitMessageSource;
import io.tandem.rabbitmq.RabbitTransport;
import io.tandem.redis.RedisStreamsMessageSource;
import io.tandem.redis.RedisStreamsTransport;
import io.tandem.redis.StreamRouter;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestEvents;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The CDC relay end to end on the non-Kafka transports (RabbitMQ, NATS JetStream, Redis Streams,
 * the machine's brokers on 5672, 4222 and 6379, or {@code TANDEM_RABBITMQ_URI}, {@code
 * TANDEM_NATS_URL}, {@code TANDEM_REDIS_URI}): every committed event arrives, in order per
 * aggregate, and the message a consumer receives (key, headers, body) is byte-identical to the
 * polling relay's for the same rows, each relay publishing to a destination of its own.
 */
@Tag("slow")
class CdcTransportsTest {
  private IsolatedDatabase database;

  /** The three brokers, each with a publisher and a consumer on a destination of the test's own. */
  enum Broker {
    RABBITMQ {
      @Override
      Transport transport(String name) {
        return RabbitTransport.builder()
            .uri(env("TANDEM_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/"))
            .source(SOURCE)
            .exchangeRouter(ExchangeRouter.fixed(name))
            .build();
      }

      @Override
      MessageSource source(String name) {
        RabbitMessageSource source =
            RabbitMessageSource.builder()
                .uri(env("TANDEM_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/"))
                .queue(name)
                .declareQueue(true)
                .bind(name, "#")
                .build();
        source.declare(); // the queue and its binding exist before the first publish
        return source;
      }
    },
    NATS {
      @Override
      Transport transport(String name) {
        return JetStreamTransport.builder()
            .url(env("TANDEM_NATS_URL", "nats://127.0.0.1:4222"))
            .source(SOURCE)
            .subjectRouter(SubjectRouter.fixed(name))
            .ensureStream(name.replace('.', '_').toUpperCase(java.util.Locale.ROOT), name)
            .build();
      }

      @Override
      MessageSource source(String name) {
        return JetStreamMessageSource.builder()
            .url(env("TANDEM_NATS_URL", "nats://127.0.0.1:4222"))
            .stream(name.replace('.', '_').toUpperCase(java.util.Locale.ROOT))
            .ensureStream(name) // the stream exists before the relay's first publish
            .durable("cdc-test")
            .build();
      }
    },
    REDIS {
      @Override
      Transport transport(String name) {
        return RedisStreamsTransport.builder()
            .uri(env("TANDEM_REDIS_URI", "redis://127.0.0.1:6379"))
            .source(SOURCE)
            .streamRouter(StreamRouter.fixed(name))
            .build();
      }

      @Override
      MessageSource source(String name) {
        return RedisStreamsMessageSource.builder()
            .uri(env("TANDEM_REDIS_URI", "redis://127.0.0.1:6379"))
            .streams(name)
            .group("cdc-test")
            .build();
      }
    };

    static final String SOURCE = "/tandem/orders-service";

    /**
     * What the broker adds on delivery, not what a relay published: RabbitMQ's exchange and
     * redelivered flag, JetStream's stream, stream sequence and delivery count (the sequence is the
     * message's place among all in the stream, and the CDC relay publishes the aggregates
     * interleaved in commit order, the polling relay by partition).
     */
    static final Set<String> DELIVERY_FIELDS =
        Set.of("exchange", "redelivered", "stream", "stream_sequence", "delivered");

    abstract Transport transport(String name);

    abstract MessageSource source(String name);

    static String env(String variable, String fallback) {
      String value = System.getenv(variable);
      return value == null || value.isBlank() ? fallback : value.strip();
    }
  }

  /** What a consumer sees of a message: its key, headers and body. */
  record Received(String key, Map<String, String> headers, String bodyHex, long version) {}

  @AfterEach
  void dropDatabase() {
    CdcTestSupport.dropSlotsAndClose(database);
  }

  @ParameterizedTest
  @EnumSource(Broker.class)
  void deliversEveryEventInOrderAndTheSameMessagesAsThePollingRelay(Broker broker)
      throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_transport_" + broker.name().toLowerCase());
    String cdcName = "tandem-test.cdc." + CdcTestSupport.unique(broker.name().toLowerCase());
    String pollingName = cdcName + ".polling";
    List<Event> events = TestEvents.events("order", 4, 40);
    Map<String, List<Received>> fromCdc = new ConcurrentHashMap<>();
    Map<String, List<Received>> fromPolling = new ConcurrentHashMap<>();
    List<String> cdcOrder = new CopyOnWriteArrayList<>();
    try (MessageSource cdcSource = broker.source(cdcName);
        MessageSource pollingSource = broker.source(pollingName);
        Transport cdcTransport = broker.transport(cdcName);
        Transport pollingTransport = broker.transport(pollingName)) {
      cdcSource.start(message -> collect(message, cdcName, fromCdc, cdcOrder));
      pollingSource.start(message -> collect(message, pollingName, fromPolling, null));
      try (CdcRelay relay =
          CdcRelay.builder()
              .jdbcUrl(database.jdbcUrl())
              .transport(cdcTransport)
              .slotName(CdcTestSupport.unique("tr"))
              .relayId("cdc-test")
              .offsetFlushInterval(Duration.ofMillis(200))
              .drainInterval(Duration.ofMillis(200))
              .build()) {
        relay.start();
        append(database.dataSource(), events);
        await().atMost(Duration.ofSeconds(60)).until(() -> fromCdc.size() == events.size());
      }
      try (Connection c = database.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.executeUpdate("UPDATE tandem_outbox SET published_at = NULL, published_by = NULL");
      }
      OutboxRelay polling =
          OutboxRelay.builder()
              .dataSource(database.dataSource())
              .transport(pollingTransport)
              .relayId("polling")
              .build();
      try {
        while (polling.runOnce() > 0) {
          // until nothing is due
        }
      } finally {
        polling.close();
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> fromPolling.size() == events.size());
    }
    assertThat(fromCdc.keySet())
        .containsExactlyInAnyOrderElementsOf(
            events.stream().map(e -> e.eventId().toString()).toList());
    Map<String, List<Long>> versions = new TreeMap<>();
    for (String id : cdcOrder) {
      Received r = fromCdc.get(id).get(0);
      versions.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.version());
    }
    versions.forEach((key, seen) -> assertThat(seen).as(key).isSorted().doesNotHaveDuplicates());
    assertThat(first(fromCdc))
        .as("CDC's messages against the polling relay's")
        .isEqualTo(first(fromPolling));
    assertThat(count(database.dataSource(), "SELECT count(*) FROM tandem_outbox"))
        .isEqualTo(events.size());
  }

  /**
   * Records what the consumer sees, but the broker's own delivery fields ({@link
   * Broker#DELIVERY_FIELDS}); a header whose value is the destination's name (NATS's subject) reads
   * {@code <destination>}, as the two relays publish to destinations of their own.
   */
  private static boolean collect(
      InboundMessage message,
      String destination,
      Map<String, List<Received>> into,
      List<String> order) {
    Event event = message.decode();
    String id = event.eventId().toString();
    Map<String, String> headers = new TreeMap<>(message.rawHeaders());
    headers.keySet().removeAll(Broker.DELIVERY_FIELDS);
    headers.replaceAll((name, value) -> destination.equals(value) ? "<destination>" : value);
    into.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>())
        .add(
            new Received(
                message.key(),
                headers,
                HexFormat.of().formatHex(message.rawBody()),
                event.aggregateVersion()));
    if (order != null) {
      order.add(id);
    }
    message.acknowledge();
    return true;
  }

  private static Map<String, Received> first(Map<String, List<Received>> byId) {
    return byId.entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, e -> e.getValue().get(0), (a, b) -> a, TreeMap::new));
  }
}
