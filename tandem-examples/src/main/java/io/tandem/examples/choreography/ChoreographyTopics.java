package io.tandem.examples.choreography;

import io.tandem.core.TandemException;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The choreography's topics on Kafka: creating them writable, and counting their records. */
final class ChoreographyTopics {
  static final int PARTITIONS = 3;

  private ChoreographyTopics() {}

  /**
   * Starts creating {@code topics} on a thread of its own (they take seconds to become writable,
   * time the databases' migrations can use); {@link #await} waits for it.
   */
  static FutureTask<Void> createInBackground(KafkaBroker kafka, List<String> topics) {
    FutureTask<Void> task =
        new FutureTask<>(
            () -> {
              for (String topic : topics) {
                createWritable(kafka, topic);
              }
              return null;
            });
    Thread creator = new Thread(task, "choreo-topics");
    creator.setDaemon(true);
    creator.start();
    return task;
  }

  static void await(FutureTask<Void> topics) {
    try {
      topics.get(2, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new TandemException("creating the topics failed", e.getCause());
    } catch (TimeoutException e) {
      throw new TandemException("creating the topics took more than 2 minutes", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("interrupted while creating the topics", e);
    }
  }

  /**
   * Creates a topic and waits until its partitions' leaders answer: an idempotent producer whose
   * first batch meets a leader that is not ready yet was seen to retry until its delivery timeout.
   */
  private static void createWritable(KafkaBroker kafka, String topic) {
    kafka.createTopic(topic, PARTITIONS);
    try (KafkaConsumer<byte[], byte[]> consumer =
        rawConsumer(kafka.bootstrapServers(), kafka.clientProperties())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        partitions.add(new TopicPartition(topic, p));
      }
      consumer.endOffsets(partitions, Duration.ofSeconds(30));
    }
  }

  /** How many records {@code topics} hold, from their first offset to their end. */
  static long recordCount(
      String bootstrapServers, Map<String, String> kafkaClient, List<String> topics) {
    try (KafkaConsumer<byte[], byte[]> consumer = rawConsumer(bootstrapServers, kafkaClient)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        consumer
            .partitionsFor(topic)
            .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      }
      long end = consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
      long start =
          consumer.beginningOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
      return end - start;
    }
  }

  private static KafkaConsumer<byte[], byte[]> rawConsumer(
      String bootstrapServers, Map<String, String> kafkaClient) {
    return new KafkaConsumer<>(
        KafkaClientProperties.consumer(
            kafkaClient,
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class)));
  }
}
