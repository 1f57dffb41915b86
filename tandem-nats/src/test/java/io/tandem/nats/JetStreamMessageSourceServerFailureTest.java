package io.tandem.nats;

import static io.tandem.nats.NatsTestSupport.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.PublishOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link JetStreamMessageSource} against a nats-server process that is killed and restarted. */
class JetStreamMessageSourceServerFailureTest {
  @BeforeAll
  static void needsTheNatsServerBinary() {
    assumeTrue(PrivateNatsServer.available(), "nats-server is not on the PATH");
  }

  private static List<Event> versions(int from, int to) {
    return IntStream.rangeClosed(from, to)
        .mapToObj(v -> NatsTestSupport.event("Order", "order-1", v))
        .toList();
  }

  private static void publish(JetStreamTransport nats, List<Event> events) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                nats.publish(events, Duration.ofSeconds(2)).stream()
                    .allMatch(PublishOutcome::acknowledged));
  }

  @Test
  void theSourceConsumesAgainAfterTheServerRestarts() throws Exception {
    Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    try (PrivateNatsServer server = PrivateNatsServer.open();
        JetStreamTransport nats =
            JetStreamTransport.builder()
                .url(server.url())
                .source(SOURCE)
                .ensureStream("ORDERS", "tandem.order.>")
                .build();
        JetStreamMessageSource source =
            JetStreamMessageSource.builder().url(server.url()).stream("ORDERS")
                .durable("billing")
                .ensureStream("tandem.order.>")
                .ackWait(Duration.ofSeconds(2))
                .build()) {
      source.start(
          (InboundMessage m) -> {
            m.acknowledge();
            acknowledged.add(m.decode().eventId());
            return true;
          });
      List<Event> before = versions(1, 5);
      publish(nats, before);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() == 5);

      server.kill();
      server.start(); // same port, same store: the stream and the durable are still there
      List<Event> after = versions(6, 10);
      publish(nats, after);

      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() == 10);
      assertThat(source.isRunning()).isTrue();
      assertThat(acknowledged)
          .isEqualTo(
              java.util.stream.Stream.concat(before.stream(), after.stream())
                  .map(Event::eventId)
                  .collect(Collectors.toSet()));
    }
  }
}
