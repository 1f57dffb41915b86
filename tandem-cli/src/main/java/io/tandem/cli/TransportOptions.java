package io.tandem.cli;

import io.nats.client.AuthHandler;
import io.tandem.core.ErrorSummary;
import io.tandem.core.TandemException;
import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import io.tandem.nats.JetStreamTransport;
import io.tandem.nats.SubjectRouter;
import io.tandem.rabbitmq.ExchangeRouter;
import io.tandem.rabbitmq.RabbitTransport;
import io.tandem.redis.RedisStreamsTransport;
import io.tandem.redis.StreamRouter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Mixin;
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

  @Mixin KafkaClientOptions kafkaClient = new KafkaClientOptions();

  @Option(
      names = "--nats-credentials",
      paramLabel = "FILE",
      description =
          "With --nats-url: the NATS user's credentials file (.creds: user JWT and NKEY seed)."
              + " A user and password go in the URL, nats://user:pass@host:4222 (redacted when"
              + " printed).")
  Path natsCredentials;

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

  /**
   * The broker's transport; for Kafka once the cluster answered with the given client settings.
   *
   * @param answerTimeout how long Kafka has to answer before the start fails
   * @throws IllegalArgumentException for settings that do not fit the broker or are malformed
   * @throws TandemException if Kafka does not answer or refuses the client settings
   */
  Transport build(Duration answerTimeout) {
    checkBrokerSpecificOptions();
    if (broker.kafka != null) {
      return kafka(answerTimeout);
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
      if (natsCredentials != null) {
        AuthHandler credentials = NatsCredentials.read(natsCredentials);
        b.connectionOptions(options -> options.authHandler(credentials));
      }
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

  /** A short description of how the transport connects, for the relay's start line. */
  String connectionNote() {
    if (broker.kafka != null) {
      return " (" + KafkaClientOptions.describe(kafkaClient.settings()) + ")";
    }
    if (broker.nats != null && natsCredentials != null) {
      return " (credentials file " + natsCredentials + ")";
    }
    return "";
  }

  private Transport kafka(Duration answerTimeout) {
    Map<String, String> settings = kafkaClient.settings();
    KafkaTransport.Builder b =
        KafkaTransport.builder()
            .bootstrapServers(broker.kafka)
            .source(source)
            .topicRouter(TopicRouter.byAggregateType(prefix("tandem.")));
    KafkaTransport transport;
    try {
      settings.forEach(b::producerProperty);
      transport = b.build();
    } catch (IllegalArgumentException e) {
      throw CliText.withOptionNames(e, Map.of("producerProperty", "--kafka-property"));
    } catch (KafkaException e) {
      throw new TandemException(
          "The Kafka client refused its settings: "
              + ErrorSummary.of(e)
              + " (check --kafka-config and --kafka-property)");
    }
    try {
      KafkaReachability.check(broker.kafka, settings, answerTimeout);
    } catch (RuntimeException e) {
      transport.close();
      throw e;
    }
    return transport;
  }

  private void checkBrokerSpecificOptions() {
    if (broker.kafka == null && !kafkaClient.isEmpty()) {
      throw new IllegalArgumentException(
          "--kafka-property and --kafka-config apply to --kafka-bootstrap only");
    }
    if (broker.nats == null && natsCredentials != null) {
      throw new IllegalArgumentException("--nats-credentials applies to --nats-url only");
    }
  }

  private String prefix(String defaultPrefix) {
    return prefix == null ? defaultPrefix : prefix;
  }
}
