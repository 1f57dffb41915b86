package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class KafkaBrokerTest {

  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = KafkaBroker.embedded().defaultPartitions(2).start();
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @Test
  void createTopicIsIdempotentAndAutoCreatedTopicsGetTheDefaultPartitions() throws Exception {
    assertThat(broker.isEmbedded()).isTrue();
    assertThat(broker.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");
    broker.createTopic("created", 4);
    broker.createTopic("created", 4);
    produce("auto-created", "key", "value");

    assertThat(partitionCount("created")).isEqualTo(4);
    assertThat(partitionCount("auto-created")).isEqualTo(2);
  }

  @Test
  void recordsSurviveARestartOnTheSamePort() throws Exception {
    String bootstrapServers = broker.bootstrapServers();
    broker.createTopic("survivors", 1);
    RecordMetadata before = produce("survivors", "order-1", "created");
    assertThat(consumeAll("survivors", 1)).containsExactly("order-1=created");

    broker.restart();

    assertThat(broker.bootstrapServers()).isEqualTo(bootstrapServers);
    assertThat(consumeAll("survivors", 1)).containsExactly("order-1=created");
    RecordMetadata after = produce("survivors", "order-1", "paid");
    assertThat(after.offset()).isEqualTo(before.offset() + 1);
    assertThat(consumeAll("survivors", 2)).containsExactly("order-1=created", "order-1=paid");
  }

  @Test
  void stoppedBrokerRefusesClientsUntilRestarted() throws Exception {
    broker.stop();
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 1000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000))) {
      assertThatThrownBy(() -> admin.listTopics().names().get(2, TimeUnit.SECONDS))
          .isInstanceOf(Exception.class);
    } finally {
      broker.restart();
    }
    broker.createTopic("after-outage", 1);
    assertThat(partitionCount("after-outage")).isEqualTo(1);
  }

  @Test
  void externalBrokerCreatesTopicsButCannotBeStopped() throws Exception {
    KafkaBroker external = KafkaBroker.external(broker.bootstrapServers());
    assertThat(external.isEmbedded()).isFalse();
    external.createTopic("from-external", 3);
    assertThat(partitionCount("from-external")).isEqualTo(3);
    assertThatThrownBy(external::stop)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(broker.bootstrapServers());
    external.close();
    assertThat(partitionCount("from-external")).isEqualTo(3);
  }

  private static RecordMetadata produce(String topic, String key, String value) throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      return producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    }
  }

  /** Reads {@code topic} from the beginning with a new group until {@code expected} records. */
  private static List<String> consumeAll(String topic, int expected) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrapServers(),
            ConsumerConfig.GROUP_ID_CONFIG,
            "test-" + UUID.randomUUID(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest");
    List<String> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (records.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          records.add(record.key() + "=" + record.value());
        }
      }
    }
    return records;
  }

  private static int partitionCount(String topic) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .size();
    }
  }
}
