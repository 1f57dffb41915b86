package io.tandem.cli;

import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.nats.JetStreamTransport;
import io.tandem.nats.SubjectRouter;
import io.tandem.rabbitmq.ExchangeRouter;
import io.tandem.rabbitmq.RabbitTransport;
import io.tandem.redis.RedisStreamsTransport;
import io.tandem.redis.StreamRouter;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** Exactly one broker to publish to, and how to name the destination. */
final class TransportOptions {
  @ArgGroup(exclusive = true, multiplicity = "1")
  Broker broker;

  @Option(
      names = "--source",
      defaultValue = "/tandem/relay",
      description = "CloudEvents source of the published events (default: ${DEFAULT-VALUE}).")
  String source;

  @Option(
      names = "--destination-prefix",
      description =
          "Prefix of the destination (topic, exchange, subject, stream key) before the"
              + " lower-cased aggregate type (default: 'tandem.', on Redis 'tandem:').")
  String prefix;

  @Option(
      names = "--nats-stream",
      description =
          "With --nats-url: create this JetStream stream over '<prefix>>' if it does not exist.")
  String natsStream;

  static final class Broker {
    @Option(names = "--kafka-bootstrap", description = "Kafka bootstrap servers, host:port[,..].")
    String kafka;

    @Option(names = "--rabbitmq-uri", description = "RabbitMQ, amqp://user:pass@host:5672/vhost.")
    String rabbitmq;

    @Option(names = "--nats-url", description = "NATS with JetStream, nats://host:4222.")
    String nats;

    @Option(names = "--redis-uri", description = "Redis Streams, redis://host:6379.")
    String redis;
  }

  Transport build() {
    if (broker.kafka != null) {
      return KafkaTransport.builder()
          .bootstrapServers(broker.kafka)
          .source(source)
          .topicRouter(TopicRouter.byAggregateType(prefix("tandem.")))
          .build();
    }
    if (broker.rabbitmq != null) {
      return RabbitTransport.builder()
          .uri(broker.rabbitmq)
          .source(source)
          .exchangeRouter(ExchangeRouter.byAggregateType(prefix("tandem.")))
          .build();
    }
    if (broker.nats != null) {
      JetStreamTransport.Builder b =
          JetStreamTransport.builder()
              .url(broker.nats)
              .source(source)
              .subjectRouter(SubjectRouter.byAggregate(prefix("tandem.")));
      if (natsStream != null) {
        b.ensureStream(natsStream, prefix("tandem.") + ">");
      }
      return b.build();
    }
    return RedisStreamsTransport.builder()
        .uri(broker.redis)
        .source(source)
        .streamRouter(StreamRouter.byAggregateType(prefix("tandem:")))
        .build();
  }

  private String prefix(String defaultPrefix) {
    return prefix == null ? defaultPrefix : prefix;
  }
}
