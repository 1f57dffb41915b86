package io.tandem.rabbitmq.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.tandem.core.Event;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.inbox.contract.ConsumerRunnerContract;
import io.tandem.inbox.contract.SourceFactory;
import io.tandem.rabbitmq.ExchangeRouter;
import io.tandem.rabbitmq.RabbitTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;

/**
 * The consumer contract with RabbitMQ: each group is a durable single-active-consumer queue bound
 * with {@code #} to the aggregate type's exchange ({@code tandem.<type>}), declared by the source's
 * own {@code declare()}; events are published by {@link RabbitTransport} with its default router.
 * Queues and exchanges are deleted after the class.
 */
abstract class RabbitConsumerContract extends ConsumerRunnerContract {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Set<String> queues = ConcurrentHashMap.newKeySet();
  private final Set<String> exchanges = ConcurrentHashMap.newKeySet();
  private RabbitTransport transport;

  @Override
  protected void prepare(String group, String aggregateType) {
    queues.add(group);
    exchanges.add(exchange(aggregateType));
    RabbitContractSources.source(group, aggregateType).declare();
  }

  @Override
  protected MessageSource source(String group, String aggregateType) {
    return RabbitContractSources.source(group, aggregateType);
  }

  @Override
  protected void publish(List<Event> events) {
    if (transport == null) {
      transport =
          RabbitTransport.builder()
              .uri(RabbitContractSources.uri())
              .source("/tandem/contract")
              .exchangeRouter(ExchangeRouter.byAggregateType())
              .connectionName("tandem-contract-publisher")
              .build();
    }
    List<PublishOutcome> outcomes = transport.publish(events, TIMEOUT);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());
  }

  /** A message on the aggregate type's exchange with no CloudEvents headers and a garbage body. */
  @Override
  protected void publishInvalid(String aggregateType, String key) throws Exception {
    try (Connection connection = admin();
        Channel channel = connection.createChannel()) {
      channel.confirmSelect();
      AMQP.BasicProperties properties =
          new AMQP.BasicProperties.Builder()
              .contentType("text/plain")
              .deliveryMode(2)
              .headers(Map.of("note", "not a CloudEvent"))
              .build();
      channel.basicPublish(
          exchange(aggregateType),
          key,
          true,
          properties,
          "garbage, not JSON".getBytes(StandardCharsets.UTF_8));
      channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
    }
  }

  @Override
  protected Class<? extends SourceFactory> sourceFactory() {
    return RabbitContractSources.class;
  }

  @Override
  protected Map<String, String> childProperties() {
    return Map.of(RabbitContractSources.URI_PROPERTY, RabbitContractSources.uri());
  }

  @AfterAll
  void deleteTopology() throws Exception {
    if (transport != null) {
      transport.close();
    }
    try (Connection connection = admin()) {
      for (String queue : queues) {
        try (Channel channel = connection.createChannel()) {
          channel.queueDelete(queue);
        }
      }
      for (String exchange : exchanges) {
        try (Channel channel = connection.createChannel()) {
          channel.exchangeDelete(exchange);
        }
      }
    }
  }

  private static String exchange(String aggregateType) {
    return ExchangeRouter.DEFAULT_PREFIX + aggregateType.toLowerCase(Locale.ROOT);
  }

  private static Connection admin() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(RabbitContractSources.uri());
    if (factory.getVirtualHost().isEmpty()) {
      factory.setVirtualHost("/");
    }
    return factory.newConnection("tandem-contract-admin");
  }
}
