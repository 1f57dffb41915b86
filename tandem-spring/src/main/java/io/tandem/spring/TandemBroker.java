package io.tandem.spring;

import io.tandem.core.Event;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.Transport;
import java.util.List;

/**
 * The broker this application publishes to and consumes from, as {@code tandem.transport} chose it:
 * the relay's {@link Transport} and a {@link MessageSource} for each consumer. Each transport
 * module (tandem-kafka, -rabbitmq, -nats, -redis) is loaded only when it is the chosen one, so the
 * others need not be on the classpath.
 */
public interface TandemBroker {
  /** The transport's name: kafka, rabbitmq, nats or redis. */
  String name();

  /** A new transport for the relay; the caller closes it. */
  Transport transport();

  /**
   * A new source for consumer group {@code group} receiving every event of {@code aggregateTypes}
   * as this broker's transport routes them (Kafka topic, RabbitMQ exchange, NATS subject, Redis
   * stream per aggregate type).
   */
  MessageSource source(String group, List<String> aggregateTypes);

  /** A stand-in event of {@code aggregateType}, to ask a router where that type goes. */
  static Event probe(String aggregateType, String aggregateId) {
    return Event.builder()
        .aggregate(aggregateType, aggregateId, 1)
        .eventType("probe")
        .payload("{}")
        .build();
  }
}
