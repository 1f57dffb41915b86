package io.tandem.spring.boot;

import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.spring.TandemProperties;

/**
 * Builds the Kafka transport from {@code tandem.kafka.*}; loaded only when tandem-kafka is present.
 */
final class KafkaTransports {
  private KafkaTransports() {}

  static Transport create(TandemProperties.Kafka kafka, String applicationName) {
    String source = kafka.getSource() != null ? kafka.getSource() : "/tandem/" + applicationName;
    return KafkaTransport.builder()
        .bootstrapServers(kafka.getBootstrapServers())
        .source(source)
        .topicRouter(TopicRouter.byAggregateType(kafka.getTopicPrefix()))
        .build();
  }
}
