package io.tandem.drill;

import io.tandem.kafka.KafkaClientProperties;
import io.tandem.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Reads a topic from the broker itself (not from any process's counters), and copies records. */
final class Broker {
  private static final String EVENT_ID_HEADER = "ce_id";

  private Broker() {}

  /** Every record on {@code topic} now, in partition order. */
  static List<ConsumerRecord<byte[], byte[]>> readAll(KafkaBroker kafka, String topic) {
    Map<String, Object> config =
        KafkaClientProperties.consumer(
            kafka.clientProperties(),
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"));
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic, Duration.ofSeconds(30))
          .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end within 60 s");
        }
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  /** The event id a Tandem record carries, or null. */
  static UUID eventId(ConsumerRecord<byte[], byte[]> record) {
    Header h = record.headers().lastHeader(EVENT_ID_HEADER);
    if (h == null) {
      return null;
    }
    try {
      return UUID.fromString(new String(h.value(), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  static Set<UUID> distinctIds(KafkaBroker kafka, String topic) {
    Set<UUID> ids = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : readAll(kafka, topic)) {
      UUID id = eventId(r);
      if (id != null) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** Sends {@code records} to {@code topic} in this order, same keys, values and headers. */
  static void send(KafkaBroker kafka, String topic, List<ConsumerRecord<byte[], byte[]>> records) {
    Map<String, Object> config =
        KafkaClientProperties.producer(
            kafka.clientProperties(),
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (ConsumerRecord<byte[], byte[]> r : records) {
        producer.send(new ProducerRecord<>(topic, null, r.key(), r.value(), r.headers()));
      }
      producer.flush();
    }
  }
}
