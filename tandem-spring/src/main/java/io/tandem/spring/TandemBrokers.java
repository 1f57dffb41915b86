package io.tandem.spring;

import java.util.Locale;

/** Chooses the {@link TandemBroker} that {@code tandem.transport} names. */
public final class TandemBrokers {
  private TandemBrokers() {}

  /**
   * The broker {@code properties} configure, or null when none is: {@code tandem.transport} names
   * one (kafka, rabbitmq, nats, redis), or, without it, {@code tandem.kafka.bootstrap-servers} set
   * means Kafka.
   *
   * @param applicationName the default CloudEvents source is {@code /tandem/<applicationName>}
   * @throws IllegalStateException naming the property to set when the chosen transport's module is
   *     not on the classpath or its address is missing
   */
  public static TandemBroker of(TandemProperties properties, String applicationName) {
    String chosen = properties.getTransport();
    if (chosen == null || chosen.isBlank()) {
      if (properties.getKafka().getBootstrapServers() == null) {
        return null;
      }
      chosen = "kafka";
    }
    String source = properties.getSource() != null ? properties.getSource() : null;
    if (source == null && properties.getKafka().getSource() != null) {
      source = properties.getKafka().getSource();
    }
    if (source == null) {
      source = "/tandem/" + applicationName;
    }
    switch (chosen.trim().toLowerCase(Locale.ROOT)) {
      case "kafka":
        require(properties.getKafka().getBootstrapServers(), "tandem.kafka.bootstrap-servers");
        requireClass("io.tandem.kafka.KafkaTransport", "tandem-kafka", "kafka");
        return new KafkaBroker(properties.getKafka(), source);
      case "rabbitmq":
        require(properties.getRabbitmq().getUri(), "tandem.rabbitmq.uri");
        requireClass("io.tandem.rabbitmq.RabbitTransport", "tandem-rabbitmq", "rabbitmq");
        return new RabbitBroker(properties.getRabbitmq(), source);
      case "nats":
        require(properties.getNats().getUrl(), "tandem.nats.url");
        requireClass("io.tandem.nats.JetStreamTransport", "tandem-nats", "nats");
        return new NatsBroker(properties.getNats(), source);
      case "redis":
        require(properties.getRedis().getUri(), "tandem.redis.uri");
        requireClass("io.tandem.redis.RedisStreamsTransport", "tandem-redis", "redis");
        return new RedisBroker(properties.getRedis(), source);
      default:
        throw new IllegalStateException(
            "tandem.transport must be one of kafka, rabbitmq, nats, redis, was '" + chosen + "'");
    }
  }

  private static void require(String value, String property) {
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "tandem.transport chose a transport whose address is not set: set " + property);
    }
  }

  private static void requireClass(String className, String module, String transport) {
    try {
      Class.forName(className, false, TandemBrokers.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "tandem.transport="
              + transport
              + " needs io.tandem:"
              + module
              + " on the classpath: add it as a dependency");
    }
  }
}
