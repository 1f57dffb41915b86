package io.tandem.examples.choreography;

import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Builds a {@link ChoreographedCheckout} (not started). Every setting is optional: without servers,
 * it starts an embedded PostgreSQL and an embedded Kafka broker. Not thread-safe.
 */
public final class ChoreographedCheckoutBuilder {
  DatabaseServer postgres;
  String jdbcUrl;
  DatabaseServer paymentDatabase;
  String mariadbUrl;
  KafkaBroker kafka;
  String kafkaBootstrap;
  Map<String, String> kafkaClient = Map.of();
  Duration pollInterval = ChoreographedCheckout.DEFAULT_POLL_INTERVAL;
  int concurrency = ChoreographedCheckout.DEFAULT_CONCURRENCY;
  String topicPrefix;
  PrintStream progress;
  Set<String> externalServices = Set.of();

  ChoreographedCheckoutBuilder() {}

  ChoreographedCheckoutBuilder copy() {
    ChoreographedCheckoutBuilder b = new ChoreographedCheckoutBuilder();
    b.postgres = postgres;
    b.jdbcUrl = jdbcUrl;
    b.paymentDatabase = paymentDatabase;
    b.mariadbUrl = mariadbUrl;
    b.kafka = kafka;
    b.kafkaBootstrap = kafkaBootstrap;
    b.kafkaClient = kafkaClient;
    b.pollInterval = pollInterval;
    b.concurrency = concurrency;
    b.topicPrefix = topicPrefix;
    b.progress = progress;
    b.externalServices = externalServices;
    return b;
  }

  /** A running PostgreSQL server for the databases (left running by {@code close()}). */
  public ChoreographedCheckoutBuilder postgres(PostgresServer postgres) {
    this.postgres = postgres;
    return this;
  }

  /**
   * An external PostgreSQL by JDBC URL whose user may create databases, e.g. {@code
   * jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}; null (default) for an embedded one.
   */
  public ChoreographedCheckoutBuilder jdbcUrl(String jdbcUrl) {
    this.jdbcUrl = blankToNull(jdbcUrl);
    return this;
  }

  /** The server of the payment service's database (a MariaDB, say); default PostgreSQL. */
  public ChoreographedCheckoutBuilder paymentDatabase(DatabaseServer paymentDatabase) {
    this.paymentDatabase = paymentDatabase;
    return this;
  }

  /**
   * A MariaDB for the payment service's database, used when it answers at start (else payment runs
   * on PostgreSQL, which the progress stream reports), e.g. {@code
   * jdbc:mariadb://127.0.0.1:3306/test?user=root}.
   */
  public ChoreographedCheckoutBuilder mariadbUrl(String mariadbUrl) {
    this.mariadbUrl = blankToNull(mariadbUrl);
    return this;
  }

  /** A running Kafka cluster (left running by {@code close()}). */
  public ChoreographedCheckoutBuilder kafka(KafkaBroker kafka) {
    this.kafka = kafka;
    return this;
  }

  /**
   * Client settings (TLS, SASL) for the Kafka of {@link #kafkaBootstrap}; none by default. Their
   * values are never printed; service processes get them through their environment.
   */
  public ChoreographedCheckoutBuilder kafkaClientProperties(Map<String, String> kafkaClient) {
    this.kafkaClient = Map.copyOf(kafkaClient);
    return this;
  }

  /** An external Kafka by bootstrap servers; null (default) for an embedded broker. */
  public ChoreographedCheckoutBuilder kafkaBootstrap(String kafkaBootstrap) {
    this.kafkaBootstrap = blankToNull(kafkaBootstrap);
    return this;
  }

  /**
   * How often the relays look for new outbox rows besides PostgreSQL's notifications (half of it on
   * MariaDB, which has none); default {@link ChoreographedCheckout#DEFAULT_POLL_INTERVAL}, at least
   * 10 ms.
   */
  public ChoreographedCheckoutBuilder pollInterval(Duration pollInterval) {
    if (pollInterval == null || pollInterval.toMillis() < 10) {
      throw new IllegalArgumentException(
          "pollInterval must be at least 10 ms, was " + pollInterval);
    }
    this.pollInterval = pollInterval;
    return this;
  }

  /**
   * Worker lanes of each service's consumer, 1 to 32; default {@value
   * ChoreographedCheckout#DEFAULT_CONCURRENCY}.
   */
  public ChoreographedCheckoutBuilder concurrency(int concurrency) {
    if (concurrency < 1 || concurrency > 32) {
      throw new IllegalArgumentException("concurrency must be 1 to 32, was " + concurrency);
    }
    this.concurrency = concurrency;
    return this;
  }

  /**
   * The prefix of the topics and consumer groups: 1 to 100 of {@code a-z 0-9 . _ -}; default {@code
   * tandem.choreo-<random>.}, so runs sharing a cluster never see each other's events.
   */
  public ChoreographedCheckoutBuilder topicPrefix(String topicPrefix) {
    if (topicPrefix == null || !topicPrefix.matches("[a-z0-9._-]{1,100}")) {
      throw new IllegalArgumentException(
          "topicPrefix must be 1 to 100 of a-z, 0-9, '.', '_', '-', was '" + topicPrefix + "'");
    }
    this.topicPrefix = topicPrefix;
    return this;
  }

  /**
   * Services this instance does not run: their databases and topics are created as for the others,
   * but their relay and consumer run elsewhere — {@link ChoreographyServiceMain} in a process of
   * its own, given {@link ChoreographedCheckout#jdbcUrl(String)}, {@link
   * ChoreographedCheckout#bootstrapServers()} and {@link ChoreographedCheckout#topicPrefix()} — so
   * that a test can kill one with SIGKILL and start it again. {@link
   * ChoreographedCheckout#redeliverAll} leaves them out.
   */
  public ChoreographedCheckoutBuilder externalServices(String... services) {
    for (String service : services) {
      if (!ServiceWiring.INBOUND.containsKey(service)) {
        throw new IllegalArgumentException(
            "service must be order, payment, inventory or shipping, was '" + service + "'");
      }
    }
    this.externalServices = Set.of(services);
    return this;
  }

  /** Where to print progress lines; null (default) for silence. */
  public ChoreographedCheckoutBuilder progress(PrintStream progress) {
    this.progress = progress;
    return this;
  }

  /**
   * @throws IllegalArgumentException when both a server and a URL are given for the same role
   */
  public ChoreographedCheckout build() {
    if (postgres != null && jdbcUrl != null) {
      throw new IllegalArgumentException("give postgres or jdbcUrl, not both");
    }
    if (kafka != null && kafkaBootstrap != null) {
      throw new IllegalArgumentException("give kafka or kafkaBootstrap, not both");
    }
    if (paymentDatabase != null && mariadbUrl != null) {
      throw new IllegalArgumentException("give paymentDatabase or mariadbUrl, not both");
    }
    return new ChoreographedCheckout(this);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
