package io.tandem.bench;

import io.tandem.core.FaultInjector;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.KafkaBroker;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** The relays and consumers of one approach of {@code tandem compare}; closed last first. */
final class CompareWiring implements AutoCloseable {
  private final String bootstrap;
  private final Map<String, String> kafkaClient;
  private final String prefix;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  CompareWiring(KafkaBroker kafka, String prefix) {
    this.bootstrap = kafka.bootstrapServers();
    this.kafkaClient = kafka.clientProperties();
    this.prefix = prefix;
  }

  String topic(String name) {
    return prefix + name;
  }

  /** A started relay of {@code db}'s outbox, routing each event to prefix + aggregate type. */
  OutboxRelay relay(DataSource db, String relayId, FaultInjector faults) {
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(bootstrap)
            .clientProperties(kafkaClient)
            .source("/tandem/compare/" + relayId)
            .topicRouter(TopicRouter.byAggregateType(prefix))
            .build();
    resources.push(transport);
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db)
            .transport(transport)
            .relayId(relayId)
            .faultInjector(faults)
            .build();
    relay.start();
    resources.push(relay);
    return relay;
  }

  /** A started consumer runner of {@code processor} on prefix + {@code topic}. */
  ConsumerRunner consumer(InboxProcessor processor, String topic, int lanes) {
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(
                KafkaMessageSource.builder()
                    .bootstrapServers(bootstrap)
                    .clientProperties(kafkaClient)
                    .groupId(prefix + processor.consumer())
                    .topics(List.of(prefix + topic))
                    .build())
            .processor(processor)
            .concurrency(lanes)
            .build();
    runner.start();
    resources.push(runner);
    return runner;
  }

  @Override
  public void close() {
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        // closing what a kill already stopped
      }
    }
  }
}
