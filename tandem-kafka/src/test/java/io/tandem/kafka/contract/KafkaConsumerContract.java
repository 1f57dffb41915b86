package io.tandem.kafka.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.spi.MessageSource;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.inbox.contract.ConsumerRunnerContract;
import io.tandem.inbox.contract.SourceFactory;
import io.tandem.kafka.KafkaTestSupport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The consumer contract with Kafka: one topic of 4 partitions per aggregate type ({@code
 * tandem-contract.<type>}), written by {@link KafkaTransport}, and one consumer group per test
 * reading it with {@link io.tandem.kafka.KafkaMessageSource}. The broker is the tests' shared one.
 */
abstract class KafkaConsumerContract extends ConsumerRunnerContract {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static String bootstrapServers() {
    return TestInfrastructure.kafka().bootstrapServers();
  }

  @Override
  protected void prepare(String group, String aggregateType) {
    KafkaTestSupport.createWritableTopic(KafkaContractSources.topic(aggregateType), 4);
  }

  @Override
  protected MessageSource source(String group, String aggregateType) {
    return KafkaContractSources.source(bootstrapServers(), group, aggregateType);
  }

  /** Publishes with a new transport each time (a new producer for each test's new topic). */
  @Override
  protected void publish(List<Event> events) {
    try (KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(bootstrapServers())
            .source("/tandem/contract")
            .topicRouter(TopicRouter.byAggregateType(KafkaContractSources.PREFIX))
            .build()) {
      List<PublishOutcome> outcomes = transport.publish(events, TIMEOUT);
      assertThat(outcomes).allSatisfy(o -> assertThat(o.acknowledged()).as(o.toString()).isTrue());
    }
  }

  /** A record keyed {@code key} on the type's topic, without {@code ce_id}, with a text body. */
  @Override
  protected void publishInvalid(String aggregateType, String key) throws Exception {
    RecordHeaders headers = new RecordHeaders();
    headers.add("ce_specversion", "1.0".getBytes(StandardCharsets.UTF_8));
    headers.add("ce_type", "Changed".getBytes(StandardCharsets.UTF_8));
    headers.add("ce_source", "/tandem/contract".getBytes(StandardCharsets.UTF_8));
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
      producer
          .send(
              new ProducerRecord<>(
                  KafkaContractSources.topic(aggregateType),
                  null,
                  key,
                  "garbage, not JSON".getBytes(StandardCharsets.UTF_8),
                  headers))
          .get(30, TimeUnit.SECONDS);
    }
  }

  @Override
  protected Class<? extends SourceFactory> sourceFactory() {
    return KafkaContractSources.class;
  }

  @Override
  protected Map<String, String> childProperties() {
    return Map.of(KafkaContractSources.BOOTSTRAP_PROPERTY, bootstrapServers());
  }
}
