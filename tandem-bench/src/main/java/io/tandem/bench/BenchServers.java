package io.tandem.bench;

import io.tandem.core.Redaction;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaBrokerProcess;
import io.tandem.testkit.PostgresServer;
import java.util.Map;

/**
 * The servers of a benchmark run: the given PostgreSQL or an embedded one with fsync on (never the
 * fast, unsafe defaults), and the given Kafka or an embedded broker in a child process (so that its
 * heap and CPU are not the benchmark's).
 */
final class BenchServers implements AutoCloseable {
  final PostgresServer postgres;
  final KafkaBrokerProcess kafkaProcess;
  final KafkaBroker kafka;
  final String database;

  BenchServers(String jdbcUrl, String kafkaBootstrap, Map<String, String> kafkaClient) {
    this(jdbcUrl, kafkaBootstrap, kafkaClient, false);
  }

  /** With {@code logical}, an embedded PostgreSQL runs with {@code wal_level=logical} (for CDC). */
  BenchServers(
      String jdbcUrl, String kafkaBootstrap, Map<String, String> kafkaClient, boolean logical) {
    PostgresServer.Builder embedded = PostgresServer.embedded().durable(true);
    if (logical) {
      embedded.serverConfig("wal_level", "logical");
    }
    postgres = jdbcUrl == null ? embedded.start() : PostgresServer.external(jdbcUrl);
    try {
      kafkaProcess =
          kafkaBootstrap == null ? KafkaBrokerProcess.start(BenchJvm.brokerOptions()) : null;
      String bootstrap = kafkaProcess != null ? kafkaProcess.bootstrapServers() : kafkaBootstrap;
      kafka = KafkaBroker.external(bootstrap, kafkaClient);
    } catch (RuntimeException e) {
      postgres.close();
      throw e;
    }
    database = postgres.isEmbedded() ? "embedded PostgreSQL (fsync on)" : Redaction.redact(jdbcUrl);
  }

  String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  @Override
  public void close() {
    try {
      if (kafkaProcess != null) {
        kafkaProcess.close();
      }
    } finally {
      postgres.close();
    }
  }
}
