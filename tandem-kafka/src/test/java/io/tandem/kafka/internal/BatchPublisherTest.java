package io.tandem.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.kafka.CloudEventsKafkaCodec;
import io.tandem.kafka.TopicRouter;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

class BatchPublisherTest {

  @Test
  void aProducerInAFatalStateIsReplacedForTheNextPublish() {
    String topic = "fatal-" + UUID.randomUUID().toString().substring(0, 8);
    TestInfrastructure.kafka().createTopic(topic, 1);
    Map<String, Object> config =
        ClientProperties.producer(TestInfrastructure.kafka().bootstrapServers(), Map.of());
    AtomicInteger created = new AtomicInteger();
    ProducerSlot slot =
        new ProducerSlot(
            () -> {
              created.incrementAndGet();
              return new KafkaProducer<>(config);
            });
    BatchPublisher publisher =
        new BatchPublisher(slot, TopicRouter.fixed(topic), CloudEventsKafkaCodec.create("/t"));
    List<Event> events =
        IntStream.rangeClosed(1, 5)
            .mapToObj(
                v ->
                    Event.builder()
                        .aggregate("Order", "order-1", v)
                        .eventType("OrderPlaced")
                        .payload("{}")
                        .build())
            .toList();
    try {
      slot.acquire().producer().close(); // as if it had died underneath the transport

      List<PublishOutcome> broken = publisher.publish(events, Duration.ofSeconds(10));
      List<PublishOutcome> healed = publisher.publish(events, Duration.ofSeconds(10));

      assertThat(broken)
          .allSatisfy(
              o -> {
                assertThat(o.acknowledged()).isFalse();
                assertThat(o.failure().errorClass()).isEqualTo(ErrorClass.TRANSIENT);
              });
      assertThat(healed).allMatch(PublishOutcome::acknowledged);
      assertThat(created).hasValue(2);
    } finally {
      slot.close(Duration.ZERO);
    }
  }
}
