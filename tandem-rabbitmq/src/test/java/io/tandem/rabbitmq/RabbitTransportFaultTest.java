package io.tandem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Network faults between the transport and a real broker, made by a {@link TcpProxy}. */
class RabbitTransportFaultTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private final RabbitTestSupport.Topology topology = new RabbitTestSupport.Topology();
  private final TcpProxy proxy;

  RabbitTransportFaultTest() {
    URI broker = URI.create(RabbitTestSupport.uri());
    proxy = new TcpProxy(broker.getHost(), broker.getPort() == -1 ? 5672 : broker.getPort());
  }

  @AfterEach
  void cleanUp() {
    proxy.close();
    topology.close();
  }

  private RabbitTransport throughProxy(String exchange, Duration connectTimeout) {
    URI broker = URI.create(RabbitTestSupport.uri());
    try {
      URI proxied =
          new URI(
              broker.getScheme(),
              broker.getUserInfo(),
              "127.0.0.1",
              proxy.port(),
              broker.getPath(),
              broker.getQuery(),
              null);
      return RabbitTransport.builder()
          .uri(proxied.toString())
          .source(RabbitTestSupport.SOURCE)
          .exchangeRouter(ExchangeRouter.fixed(exchange))
          .connectTimeout(connectTimeout)
          .build();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aConnectionLostWhileAwaitingConfirmsFailsRetriablyAndTheNextPublishReconnects()
      throws Exception {
    String exchange = topology.exchange("cut");
    String queue = topology.queue(exchange, "#");
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (RabbitTransport rabbit = throughProxy(exchange, Duration.ofSeconds(2))) {
      List<Event> warmUp = RabbitTestSupport.events("Order", "warm-", 3, 10);
      assertThat(rabbit.publish(warmUp, TIMEOUT)).allMatch(PublishOutcome::acknowledged);

      proxy.freeze(); // the batch leaves the client, but no confirm can come back
      long started = System.nanoTime();
      Future<List<PublishOutcome>> during =
          executor.submit(
              () ->
                  rabbit.publish(
                      RabbitTestSupport.events("Order", "during-", 3, 100),
                      Duration.ofSeconds(10)));
      await().atMost(Duration.ofSeconds(5)).until(() -> proxy.bytesHeld() > 0);
      proxy.cut();
      proxy.thaw();

      assertThat(during.get(5, TimeUnit.SECONDS))
          .allSatisfy(
              o -> {
                assertThat(o.acknowledged()).isFalse();
                assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.CONNECTION_LOST);
                assertThat(o.failure().retriable()).isTrue();
              });
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));

      List<Event> after = RabbitTestSupport.events("Order", "after-", 3, 100);
      assertThat(rabbit.publish(after, TIMEOUT)).allMatch(PublishOutcome::acknowledged);

      Set<UUID> held = topology.messageIds(queue, warmUp.size() + after.size());
      assertThat(held).containsAll(warmUp.stream().map(Event::eventId).toList());
      assertThat(held).containsAll(after.stream().map(Event::eventId).toList());
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void aBrokerThatStopsAnsweringTimesOutByTheDeadlineAndPublishingResumesAfterwards() {
    String exchange = topology.exchange("frozen");
    String queue = topology.queue(exchange, "#");
    try (RabbitTransport rabbit = throughProxy(exchange, Duration.ofSeconds(2))) {
      assertThat(rabbit.publish(RabbitTestSupport.events("Order", "warm-", 3, 10), TIMEOUT))
          .allMatch(PublishOutcome::acknowledged);

      proxy.freeze();
      long started = System.nanoTime();
      List<PublishOutcome> frozen =
          rabbit.publish(
              RabbitTestSupport.events("Order", "frozen-", 3, 200), Duration.ofMillis(800));

      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1500));
      assertThat(frozen)
          .allSatisfy(
              o -> {
                assertThat(o.acknowledged()).isFalse();
                assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.TIMEOUT);
              });

      proxy.thaw();
      List<Event> after = RabbitTestSupport.events("Order", "after-", 3, 50);
      assertThat(rabbit.publish(after, TIMEOUT)).allMatch(PublishOutcome::acknowledged);
      // The frozen batch reaches the broker once thawed: at least once, never lost silently.
      assertThat(topology.messageIds(queue, 10 + 200 + 50))
          .containsAll(after.stream().map(Event::eventId).toList());
    }
  }

  @Test
  void aBrokerThatAcceptsButNeverCompletesTheHandshakeIsUnavailableWithinTheTimeout() {
    proxy.freeze();
    long started = System.nanoTime();
    List<PublishOutcome> outcomes;
    try (RabbitTransport rabbit = throughProxy("tandem.never", Duration.ofSeconds(5))) {
      outcomes =
          rabbit.publish(RabbitTestSupport.events("Order", "o-", 2, 10), Duration.ofMillis(700));
    }

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(2500));
    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
              assertThat(o.failure().retriable()).isTrue();
            });
  }
}
