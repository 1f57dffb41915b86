package io.tandem.drill;

import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.PostgresServer;

/**
 * The servers the drills run against: the given PostgreSQL and Kafka, or embedded ones started here
 * (PostgreSQL from Maven-shipped binaries, a single KRaft Kafka broker in this JVM — the drill's
 * processes are separate JVMs, and this one stops and restarts the broker for {@code
 * broker-outage}).
 */
final class DrillEnvironment implements AutoCloseable {
  private final DrillSettings settings;
  private final PostgresServer postgres;
  private final KafkaBroker kafka;

  private DrillEnvironment(DrillSettings settings, PostgresServer postgres, KafkaBroker kafka) {
    this.settings = settings;
    this.postgres = postgres;
    this.kafka = kafka;
  }

  static DrillEnvironment start(DrillSettings settings) {
    PostgresServer postgres =
        settings.jdbcUrl() == null
            ? PostgresServer.embedded().start()
            : PostgresServer.external(settings.jdbcUrl());
    try {
      KafkaBroker kafka =
          settings.kafkaBootstrap() == null
              ? KafkaBroker.embedded().start()
              : KafkaBroker.external(settings.kafkaBootstrap(), settings.kafkaClient());
      return new DrillEnvironment(settings, postgres, kafka);
    } catch (RuntimeException e) {
      postgres.close();
      throw e;
    }
  }

  DrillSettings settings() {
    return settings;
  }

  PostgresServer postgres() {
    return postgres;
  }

  KafkaBroker kafka() {
    return kafka;
  }

  String describe() {
    return "PostgreSQL "
        + (postgres.isEmbedded() ? "embedded" : "given")
        + ", Kafka "
        + (kafka.isEmbedded() ? "embedded" : kafka.bootstrapServers());
  }

  @Override
  public void close() {
    try {
      kafka.close();
    } finally {
      postgres.close();
    }
  }
}
