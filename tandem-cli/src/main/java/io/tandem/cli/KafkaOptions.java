package io.tandem.cli;

import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The Kafka options of a command that talks to Kafka and can start its own broker ({@code demo},
 * {@code bench}, {@code drill}, {@code compare}): the bootstrap servers and the client settings of
 * {@link KafkaClientOptions}, read once into the one map every producer, consumer and admin client
 * of the command gets ({@link #clientProperties()}).
 */
final class KafkaOptions {
  @Option(
      names = "--kafka-bootstrap",
      defaultValue = "${env:TANDEM_KAFKA_BOOTSTRAP}",
      description =
          "Kafka bootstrap servers, host:port[,..] (default: TANDEM_KAFKA_BOOTSTRAP, else an"
              + " embedded broker).")
  String bootstrap;

  @Mixin KafkaClientOptions client = new KafkaClientOptions();

  private Map<String, String> settings;

  /** The given bootstrap servers, or null for an embedded broker. */
  String bootstrapOrNull() {
    return bootstrap == null || bootstrap.isBlank() ? null : bootstrap;
  }

  /**
   * The client settings of {@code --kafka-config} and {@code --kafka-property}, read once.
   *
   * @throws IllegalArgumentException when they are malformed, or given without {@code
   *     --kafka-bootstrap} (the embedded broker listens in plaintext)
   */
  Map<String, String> clientProperties() {
    if (settings == null) {
      if (bootstrapOrNull() == null && !client.isEmpty()) {
        throw new IllegalArgumentException(
            "--kafka-property and --kafka-config apply to the Kafka of --kafka-bootstrap (the"
                + " embedded broker speaks plaintext): give --kafka-bootstrap host:port too");
      }
      settings = Map.copyOf(client.settings());
    }
    return settings;
  }

  /**
   * Reads the client settings and, when some were given, checks that the Kafka answers with them,
   * so that a refused login or a certificate that is not trusted is said once at start, before any
   * server is started (never a value). A Kafka without client settings is met as before, by the
   * command's own clients.
   *
   * @throws IllegalArgumentException for malformed settings
   * @throws io.tandem.core.TandemException when the given Kafka does not answer or refuses them
   */
  KafkaOptions checked() {
    Map<String, String> properties = clientProperties();
    if (bootstrapOrNull() != null && !properties.isEmpty()) {
      KafkaReachability.check(bootstrap, properties, Duration.ofSeconds(15), null);
    }
    return this;
  }
}
