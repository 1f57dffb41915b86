package io.tandem.kafka.contract;

import io.tandem.inbox.contract.SourceFactory;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.internal.TopicNames;
import java.time.Duration;
import java.util.List;

/**
 * The contract's sources, in the test JVM and in the child JVM of the SIGKILL test: the group on
 * the aggregate type's topic ({@value #PREFIX} + the type, as {@code
 * TopicRouter.byAggregateType(PREFIX)} writes it). A 6 s session timeout lets the group notice a
 * killed member within seconds. The brokers are named by system property {@value
 * #BOOTSTRAP_PROPERTY}.
 */
public final class KafkaContractSources implements SourceFactory {
  static final String BOOTSTRAP_PROPERTY = "tandem.kafka.contract.bootstrap";
  static final String PREFIX = "tandem-contract.";

  public KafkaContractSources() {}

  static String topic(String aggregateType) {
    return PREFIX + TopicNames.sanitize(aggregateType);
  }

  static KafkaMessageSource source(String bootstrapServers, String group, String aggregateType) {
    return KafkaMessageSource.builder()
        .bootstrapServers(bootstrapServers)
        .groupId(group)
        .topics(List.of(topic(aggregateType)))
        .pollTimeout(Duration.ofMillis(100))
        .rebalanceTimeout(Duration.ofSeconds(10))
        .closeTimeout(Duration.ofSeconds(15))
        .consumerProperty("session.timeout.ms", "6000")
        .consumerProperty("heartbeat.interval.ms", "1000")
        .build();
  }

  @Override
  public KafkaMessageSource create(String group, String aggregateType) {
    String bootstrap = System.getProperty(BOOTSTRAP_PROPERTY);
    if (bootstrap == null || bootstrap.isBlank()) {
      throw new IllegalStateException("system property " + BOOTSTRAP_PROPERTY + " is not set");
    }
    return source(bootstrap, group, aggregateType);
  }
}
