package io.tandem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.PublishOutcome;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A source whose connection is cut by a {@link TcpProxy} between it and a real broker. */
class RabbitMessageSourceFaultTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private final RabbitTestSupport.Topology topology = new RabbitTestSupport.Topology();
  private final TcpProxy proxy;

  RabbitMessageSourceFaultTest() {
    URI broker = URI.create(RabbitTestSupport.uri());
    proxy = new TcpProxy(broker.getHost(), broker.getPort() == -1 ? 5672 : broker.getPort());
  }

  @AfterEach
  void cleanUp() {
    proxy.close();
    topology.close();
  }

  private void publish(String exchange, List<Event> events) {
    try (RabbitTransport rabbit = RabbitTestSupport.transport(ExchangeRouter.fixed(exchange))) {
      assertThat(rabbit.publish(events, TIMEOUT)).allMatch(PublishOutcome::acknowledged);
    }
  }

  @Test
  void afterALostConnectionTheSourceReconnectsAndStaleAcknowledgementsAreDropped() {
    String exchange = topology.exchangeName("cut");
    String queue = topology.queueName("cut");
    RabbitMessageSource.Builder builder =
        RabbitMessageSource.builder()
            .uri(RabbitTestSupport.uriThrough(proxy.port()))
            .queue(queue)
            .declareQueue(true)
            .bind(exchange)
            .reconnectDelay(Duration.ofMillis(100));
    builder.build().declare();
    List<Event> events = RabbitTestSupport.events("Order", "order-", 3, 10);
    publish(exchange, events);

    RecordingSink sink = new RecordingSink(false);
    try (RabbitMessageSource source = builder.build()) {
      source.start(sink);
      await().atMost(TIMEOUT).until(() -> sink.size() == 10);
      sink.messages.subList(0, 5).forEach(InboundMessage::acknowledge);
      await().atMost(TIMEOUT).until(() -> topology.messageCount(queue) == 0);
      List<InboundMessage> lostWithTheConnection = List.copyOf(sink.messages.subList(5, 10));

      proxy.cut();
      // The broker requeues the 5 unacknowledged; the new session receives them again.
      await().atMost(TIMEOUT).until(() -> sink.size() == 15);
      assertThat(source.isRunning()).isTrue();
      List<InboundMessage> redelivered = List.copyOf(sink.messages.subList(10, 15));
      assertThat(redelivered.stream().map(InboundMessage::decode))
          .containsExactlyElementsOf(events.subList(5, 10));
      assertThat(redelivered)
          .allSatisfy(m -> assertThat(m.rawHeaders()).containsEntry("redelivered", "true"));

      // Their old delivery tags (6..10) would name other messages, or none, on the new channel:
      // these acknowledgements must be dropped, not sent.
      lostWithTheConnection.forEach(InboundMessage::acknowledge);
      List<Event> more = RabbitTestSupport.events("Order", "after-", 3, 6);
      publish(exchange, more);
      await().atMost(TIMEOUT).until(() -> sink.size() == 21);
      sink.messages.subList(10, 21).forEach(InboundMessage::acknowledge);
      List<Event> expected = new ArrayList<>(events.subList(5, 10));
      expected.addAll(more);
      assertThat(sink.events().subList(10, 21)).containsExactlyElementsOf(expected);
      assertThat(source.isRunning()).as("the new channel survived the stale acks").isTrue();
    }
    assertThat(topology.messageCount(queue)).as("nothing left unacknowledged").isZero();
  }
}
