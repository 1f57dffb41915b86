package io.tandem.drill;

import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaCluster;
import io.tandem.testkit.PostgresServer;

/**
 * The servers the drills run against: the given PostgreSQL and Kafka, or embedded ones started here
 * (PostgreSQL from Maven-shipped binaries, a single KRaft Kafka broker in this JVM — the drill's
 * processes are separate JVMs, and this one stops and restarts the broker for {@code
 * broker-outage}), or an embedded Kafka cluster of child processes ({@code --kafka-cluster}).
 */
final class DrillEnvironment implements AutoCloseable {
  private final DrillSettings settings;
  private final PostgresServer postgres;
  private final KafkaBroker kafka;
  private final KafkaCluster cluster;

  private DrillEnvironment(
      DrillSettings settings, PostgresServer postgres, KafkaBroker kafka, KafkaCluster cluster) {
    this.settings = settings;
    this.postgres = postgres;
    this.kafka = kafka;
    this.cluster = cluster;
  }

  static DrillEnvironment start(DrillSettings settings) {
    PostgresServer postgres =
        settings.jdbcUrl() == null
            ? PostgresServer.embedded().start()
            : PostgresServer.external(settings.jdbcUrl());
    try {
      if (settings.kafkaCluster() > 0) {
        KafkaCluster cluster = KafkaCluster.start(settings.kafkaCluster());
        return new DrillEnvironment(settings, postgres, cluster.broker(), cluster);
      }
      KafkaBroker kafka =
          settings.kafkaBootstrap() == null
              ? KafkaBroker.embedded().start()
              : KafkaBroker.external(settings.kafkaBootstrap(), settings.kafkaClient());
      return new DrillEnvironment(settings, postgres, kafka, null);
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

  /** The embedded Kafka cluster the drills run on, or null on one broker. */
  KafkaCluster cluster() {
    return cluster;
  }

  String describe() {
    return "PostgreSQL "
        + (postgres.isEmbedded() ? "embedded" : "given")
        + ", Kafka "
        + (cluster != null
            ? "embedded " + cluster.nodeIds().size() + "-node cluster"
            : kafka.isEmbedded() ? "embedded" : kafka.bootstrapServers());
  }

  @Override
  public void close() {
    try {
      kafka.close();
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      postgres.close();
    }
  }
}
