package io.tandem.kafka;

import io.tandem.core.Event;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Real-broker helpers shared by the module's tests (public for the contract package). */
public final class KafkaTestSupport {
  static final String TRACEPARENT = TestEvents.TRACEPARENT;

  private KafkaTestSupport() {}

  static KafkaBroker kafka() {
    return TestInfrastructure.kafka();
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** A new topic with {@code partitions} partitions, ready for producers. */
  static String newTopic(String prefix, int partitions) {
    String topic = unique(prefix);
    createWritableTopic(topic, partitions);
    return topic;
  }

  /**
   * Creates a topic and waits until every partition's leader answers a ListOffsets request. The
   * broker reports leaders in its metadata a moment before they serve requests, and an idempotent
   * producer whose first batch meets NOT_LEADER_OR_FOLLOWER there was seen (Kafka 4.4, embedded
   * broker) to retry with OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout.
   */
  public static void createWritableTopic(String topic, int partitions) {
    kafka().createTopic(topic, partitions);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
      List<TopicPartition> all = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        all.add(new TopicPartition(topic, p));
      }
      consumer.endOffsets(all, Duration.ofSeconds(30));
    }
  }

  static Event event(String aggregateType, String aggregateId, long version) {
    return TestEvents.event(aggregateType, aggregateId, version);
  }

  /** {@code count} events spread over {@code aggregates} aggregates, versions increasing. */
  static List<Event> events(String aggregateType, int aggregates, int count) {
    return TestEvents.events(aggregateType, aggregates, count);
  }

  static KafkaTransport transport(TopicRouter router) {
    return KafkaTransport.builder()
        .bootstrapServers(kafka().bootstrapServers())
        .source("/tandem/orders-service")
        .topicRouter(router)
        .build();
  }

  /** Reads the first {@code count} records of {@code topic}, all partitions, within 30 s. */
  static List<ConsumerRecord<String, byte[]>> readRaw(String topic, int count) {
    try (KafkaConsumer<String, byte[]> consumer = rawConsumer()) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      return records;
    }
  }

  /** The end offsets of every partition of {@code topic}. */
  static long recordCount(String topic) {
    try (KafkaConsumer<String, byte[]> consumer = rawConsumer()) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  static KafkaConsumer<String, byte[]> rawConsumer() {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka().bootstrapServers(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            "false",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class));
  }

  static KafkaProducer<String, byte[]> rawProducer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
  }

  /** Sends raw records and waits for each acknowledgement (test set-up only). */
  static void sendRaw(List<ProducerRecord<String, byte[]>> records) {
    try (KafkaProducer<String, byte[]> producer = rawProducer()) {
      for (ProducerRecord<String, byte[]> record : records) {
        producer.send(record).get(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not send test records", e);
    }
  }

  /** The committed offset of partition 0 of {@code topic} for {@code group}; -1 when none. */
  static long committedOffset(String group, String topic) {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers()))) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      OffsetAndMetadata offset = offsets.get(new TopicPartition(topic, 0));
      return offset == null ? -1 : offset.offset();
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot read committed offsets of " + group, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The committed offset of every partition of {@code topic} for {@code group}; 0 when none. */
  static Map<Integer, Long> committedOffsets(String group, String topic) {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers()))) {
      Map<Integer, Long> committed = new java.util.TreeMap<>();
      admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS)
          .forEach(
              (partition, offset) -> {
                if (partition.topic().equals(topic) && offset != null) {
                  committed.put(partition.partition(), offset.offset());
                }
              });
      return committed;
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot read committed offsets of " + group, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The sum of the committed offsets of {@code topic}'s partitions for {@code group}. */
  static long committedTotal(String group, String topic) {
    return committedOffsets(group, topic).values().stream().mapToLong(Long::longValue).sum();
  }

  /** A loopback port on which nothing listens. */
  static int closedPort() {
    return TestEvents.closedPort();
  }
}
