package io.tandem.rabbitmq.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a {@code RabbitMessageSource} consumes and how; every value already validated by its
 * builder.
 */
public record SourceSettings(
    String uri,
    String queue,
    String connectionName,
    int prefetch,
    boolean declareQueue,
    boolean singleActiveConsumer,
    Map<String, Object> queueArguments,
    List<Binding> bindings,
    Duration connectTimeout,
    Duration closeTimeout,
    Duration reconnectDelay,
    Duration lagInterval) {

  /** The queue argument that makes RabbitMQ deliver to one consumer of the queue at a time. */
  public static final String SINGLE_ACTIVE_CONSUMER = "x-single-active-consumer";

  /** A binding of the queue to {@code exchange} (a durable topic exchange) with a binding key. */
  public record Binding(String exchange, String bindingKey) {}

  public SourceSettings {
    queueArguments = Map.copyOf(queueArguments);
    bindings = List.copyOf(bindings);
  }
}
