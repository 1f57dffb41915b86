package io.tandem.examples.choreography;

import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What connects one service to the others, and nothing else does: the relay that publishes its
 * outbox to Kafka, and the consumer runner that applies the topics it listens to through its inbox.
 */
final class ServiceNode implements AutoCloseable {
  private final String service;
  private final List<String> topics;
  private final KafkaTransport transport;
  private final OutboxRelay relay;
  private final ConsumerRunner runner;

  private ServiceNode(
      String service,
      List<String> topics,
      KafkaTransport transport,
      OutboxRelay relay,
      ConsumerRunner runner) {
    this.service = service;
    this.topics = topics;
    this.transport = transport;
    this.relay = relay;
    this.runner = runner;
  }

  /**
   * Starts the relay of {@code dataSource}, publishing to {@code prefix + aggregate type}, and a
   * runner of {@code processor} on {@code topics} in consumer group {@code group}.
   */
  static ServiceNode start(
      String service,
      DataSource dataSource,
      InboxProcessor processor,
      List<String> topics,
      String bootstrapServers,
      Map<String, String> kafkaClient,
      String prefix,
      String group,
      Duration pollInterval,
      int concurrency) {
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(bootstrapServers)
            .clientProperties(kafkaClient)
            .source("/tandem/choreography/" + service)
            .topicRouter(TopicRouter.byAggregateType(prefix))
            .build();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(dataSource)
            .transport(transport)
            .relayId(prefix + service + "-relay")
            .batchSize(200)
            .leaseDuration(Duration.ofSeconds(5))
            .heartbeatInterval(Duration.ofMillis(500))
            .publishTimeout(Duration.ofSeconds(3))
            .pollInterval(pollInterval)
            .build();
    ConsumerRunner runner =
        runner(processor, topics, bootstrapServers, kafkaClient, group, concurrency);
    try {
      relay.start();
      runner.start();
    } catch (RuntimeException e) {
      runner.close();
      relay.close();
      transport.close();
      throw e;
    }
    return new ServiceNode(service, topics, transport, relay, runner);
  }

  /** A runner (not started) of {@code processor} on {@code topics} in group {@code group}. */
  static ConsumerRunner runner(
      InboxProcessor processor,
      List<String> topics,
      String bootstrapServers,
      Map<String, String> kafkaClient,
      String group,
      int concurrency) {
    return ConsumerRunner.builder()
        .source(
            KafkaMessageSource.builder()
                .bootstrapServers(bootstrapServers)
                .clientProperties(kafkaClient)
                .groupId(group)
                .topics(topics)
                .pollTimeout(Duration.ofMillis(100))
                .rebalanceTimeout(Duration.ofSeconds(5))
                .closeTimeout(Duration.ofSeconds(5))
                // A member that dies is replaced within seconds, not the default 45 s.
                .consumerProperty("session.timeout.ms", "6000")
                .consumerProperty("heartbeat.interval.ms", "1000")
                .build())
        .processor(processor)
        .concurrency(concurrency)
        .closeTimeout(Duration.ofSeconds(5))
        .build();
  }

  String service() {
    return service;
  }

  List<String> topics() {
    return topics;
  }

  InboxProcessor processor() {
    return runner.processor();
  }

  @Override
  public void close() {
    try {
      runner.close();
    } finally {
      try {
        relay.close();
      } finally {
        transport.close();
      }
    }
  }
}
