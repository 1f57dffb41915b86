package io.tandem.cli;

import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
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
      defaultValue = "tandem.",
      description =
          "Prefix of the destination (topic, exchange, subject, stream) before the lower-cased"
              + " aggregate type (default: ${DEFAULT-VALUE}).")
  String prefix;

  static final class Broker {
    @Option(names = "--kafka-bootstrap", description = "Kafka bootstrap servers, host:port[,..].")
    String kafka;
  }

  Transport build() {
    if (broker.kafka != null) {
      return KafkaTransport.builder()
          .bootstrapServers(broker.kafka)
          .source(source)
          .topicRouter(TopicRouter.byAggregateType(prefix))
          .build();
    }
    throw new IllegalArgumentException("no broker given");
  }
}
