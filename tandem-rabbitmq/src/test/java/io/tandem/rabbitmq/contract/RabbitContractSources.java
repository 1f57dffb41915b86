package io.tandem.rabbitmq.contract;

import io.tandem.inbox.contract.SourceFactory;
import io.tandem.rabbitmq.RabbitMessageSource;
import java.time.Duration;

/**
 * The contract's sources, in the test JVM and in the child JVM of the SIGKILL test: the group's
 * queue, declared (durable, single active consumer) and bound to the aggregate type's exchange. The
 * broker is named by system property {@value #URI_PROPERTY} (else the local default).
 */
public final class RabbitContractSources implements SourceFactory {
  static final String URI_PROPERTY = "tandem.rabbitmq.uri";
  private static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/";

  public RabbitContractSources() {}

  static String uri() {
    String value = System.getProperty(URI_PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv("TANDEM_RABBITMQ_URI");
    }
    return value == null || value.isBlank() ? DEFAULT_URI : value.strip();
  }

  static RabbitMessageSource source(String group, String aggregateType) {
    return RabbitMessageSource.builder()
        .uri(uri())
        .queue(group)
        .declareQueue(true)
        .bindAggregateType(aggregateType)
        .reconnectDelay(Duration.ofMillis(200))
        .lagInterval(Duration.ofMillis(200))
        .build();
  }

  @Override
  public RabbitMessageSource create(String group, String aggregateType) {
    return source(group, aggregateType);
  }
}
