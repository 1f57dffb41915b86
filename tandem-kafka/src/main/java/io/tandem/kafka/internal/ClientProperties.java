package io.tandem.kafka.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka client settings Tandem relies on, merged with the caller's extra properties. Settings
 * that a guarantee depends on (idempotence, acks=all, manual offset commits) cannot be overridden.
 */
public final class ClientProperties {
  /**
   * 0 ms: a relay hands over a whole batch at once and waits for it; lingering only adds latency.
   */
  public static final String DEFAULT_LINGER_MS = "0";

  /** 256 KiB per partition batch: 500-1000 events of a few hundred bytes fill a few batches. */
  public static final String DEFAULT_BATCH_SIZE = Integer.toString(256 * 1024);

  /**
   * 5 s (Kafka's default is 60 s): how long one send may block waiting for metadata or buffer
   * space, so that a publish to an unreachable cluster returns close to its timeout.
   */
  public static final String DEFAULT_MAX_BLOCK_MS = "5000";

  private static final Set<String> PRODUCER_FIXED =
      Set.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG);
  private static final Set<String> CONSUMER_FIXED =
      Set.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ConsumerConfig.GROUP_ID_CONFIG,
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);

  private ClientProperties() {}

  /** The idempotent producer's configuration. */
  public static Map<String, Object> producer(String bootstrapServers, Map<String, String> extra) {
    for (Map.Entry<String, String> e : extra.entrySet()) {
      String key = e.getKey();
      String value = e.getValue().trim();
      refuseFixed("producerProperty", PRODUCER_FIXED, key);
      if (key.equals(ProducerConfig.ACKS_CONFIG) && !value.equals("all") && !value.equals("-1")) {
        throw refused(
            "producerProperty", key, value, "only 'all' keeps acknowledged events durable");
      }
      if (key.equals(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG) && !value.equalsIgnoreCase("true")) {
        throw refused("producerProperty", key, value, "the producer must be idempotent");
      }
      if (key.equals(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)
          && !value.matches("[1-5]")) {
        throw refused(
            "producerProperty", key, value, "an idempotent producer keeps order only with 1 to 5");
      }
    }
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.LINGER_MS_CONFIG, DEFAULT_LINGER_MS);
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, DEFAULT_BATCH_SIZE);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, DEFAULT_MAX_BLOCK_MS);
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    props.putAll(extra);
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return props;
  }

  /** The consumer's configuration: manual commits, from the earliest offset by default. */
  public static Map<String, Object> consumer(
      String bootstrapServers, String groupId, Map<String, String> extra) {
    for (Map.Entry<String, String> e : extra.entrySet()) {
      refuseFixed("consumerProperty", CONSUMER_FIXED, e.getKey());
      if (e.getKey().equals(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG)
          && !e.getValue().trim().equalsIgnoreCase("false")) {
        throw refused(
            "consumerProperty",
            e.getKey(),
            e.getValue(),
            "offsets are committed only after the handler returned");
      }
    }
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.putAll(extra);
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return props;
  }

  /** Checks a property name and value given to a builder. */
  public static void checkEntry(String parameter, String key, String value) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(parameter + " key must not be blank");
    }
    if (value == null) {
      throw new IllegalArgumentException(parameter + "(" + key + ") value must not be null");
    }
  }

  private static void refuseFixed(String parameter, Set<String> fixed, String key) {
    if (fixed.contains(key)) {
      throw new IllegalArgumentException(
          parameter
              + "("
              + key
              + ") cannot be set: Tandem sets it (use the builder method for "
              + "bootstrap servers or the group id; transactions and serializers are not "
              + "configurable)");
    }
  }

  private static IllegalArgumentException refused(
      String parameter, String key, String value, String why) {
    return new IllegalArgumentException(
        parameter + "(" + key + ") = '" + value + "' is not allowed: " + why);
  }
}
