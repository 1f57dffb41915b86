package io.tandem.spring;

import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import java.util.List;

/** Kafka: one topic per aggregate type, {@code tandem.kafka.topic-prefix} + the type. */
final class KafkaBroker implements TandemBroker {
  private final TandemProperties.Kafka kafka;
  private final String source;
  private final TopicRouter router;

  KafkaBroker(TandemProperties.Kafka kafka, String source) {
    this.kafka = kafka;
    this.source = source;
    this.router = TopicRouter.byAggregateType(kafka.getTopicPrefix());
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public Transport transport() {
    return KafkaTransport.builder()
        .bootstrapServers(kafka.getBootstrapServers())
        .source(source)
        .topicRouter(router)
        .build();
  }

  @Override
  public MessageSource source(String group, List<String> aggregateTypes) {
    return KafkaMessageSource.builder()
        .bootstrapServers(kafka.getBootstrapServers())
        .groupId(group)
        .topics(
            aggregateTypes.stream().map(t -> router.topicFor(TandemBroker.probe(t, "x"))).toList())
        .build();
  }
}
