package io.tandem.spring;

import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.Transport;
import io.tandem.rabbitmq.RabbitMessageSource;
import io.tandem.rabbitmq.RabbitTransport;
import java.util.List;

/**
 * RabbitMQ: one topic exchange per aggregate type ({@code tandem.order}); each consumer group has
 * its own durable queue {@code <group>} (single active consumer) bound to its types' exchanges.
 */
final class RabbitBroker implements TandemBroker {
  private final TandemProperties.Rabbitmq rabbit;
  private final String source;

  RabbitBroker(TandemProperties.Rabbitmq rabbit, String source) {
    this.rabbit = rabbit;
    this.source = source;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public Transport transport() {
    return RabbitTransport.builder()
        .uri(rabbit.getUri())
        .source(source)
        .declareExchanges(rabbit.isDeclareTopology())
        .build();
  }

  @Override
  public MessageSource source(String group, List<String> aggregateTypes) {
    RabbitMessageSource.Builder b =
        RabbitMessageSource.builder()
            .uri(rabbit.getUri())
            .queue(rabbit.getQueuePrefix() + group)
            .declareQueue(rabbit.isDeclareTopology());
    if (rabbit.isDeclareTopology()) {
      aggregateTypes.forEach(b::bindAggregateType);
    }
    return b.build();
  }
}
