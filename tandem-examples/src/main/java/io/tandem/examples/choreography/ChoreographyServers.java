package io.tandem.examples.choreography;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import java.util.Deque;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * What the choreography's services run on: the servers (given, by URL, or embedded and started
 * here) and each service's own database, migrated, behind a pool. Everything it starts or creates
 * goes on the owner's resource stack, closed last first.
 */
final class ChoreographyServers {
  /** A service's database: its pool and its JDBC URL (with user), for a service run elsewhere. */
  record ServiceDatabase(DataSource pool, String jdbcUrl) {}

  private final ChoreographedCheckoutBuilder settings;
  private final Deque<AutoCloseable> resources;
  private final Consumer<String> say;

  ChoreographyServers(
      ChoreographedCheckoutBuilder settings, Deque<AutoCloseable> resources, Consumer<String> say) {
    this.settings = settings;
    this.resources = resources;
    this.say = say;
  }

  DatabaseServer postgres() {
    if (settings.postgres != null) {
      return settings.postgres;
    }
    if (settings.jdbcUrl != null) {
      return PostgresServer.external(settings.jdbcUrl);
    }
    say.accept("starting an embedded PostgreSQL");
    PostgresServer server = PostgresServer.embedded().start();
    resources.push(server);
    return server;
  }

  /** The payment service's server: the one given, a MariaDB that answers, else {@code postgres}. */
  DatabaseServer paymentServer(DatabaseServer postgres) {
    if (settings.paymentDatabase != null) {
      return settings.paymentDatabase;
    }
    if (settings.mariadbUrl != null) {
      try {
        return MariaDbServer.external(settings.mariadbUrl);
      } catch (IllegalStateException e) {
        say.accept("MariaDB does not answer (" + e.getMessage() + "); payment runs on PostgreSQL");
      }
    }
    return postgres;
  }

  KafkaBroker kafka() {
    if (settings.kafka != null) {
      return settings.kafka;
    }
    if (settings.kafkaBootstrap != null) {
      return KafkaBroker.external(settings.kafkaBootstrap, settings.kafkaClient);
    }
    say.accept("starting an embedded Kafka broker");
    KafkaBroker broker = KafkaBroker.embedded().start();
    resources.push(broker);
    return broker;
  }

  /** Creates {@code service}'s database on {@code server} and migrates it. */
  ServiceDatabase database(DatabaseServer server, String service) {
    IsolatedDatabase database = server.createDatabase("choreo_" + service);
    resources.push(database);
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setPoolName("choreo-" + service);
    config.setMaximumPoolSize(settings.concurrency + 6);
    HikariDataSource pool = new HikariDataSource(config);
    resources.push(pool);
    Migrations.migrate(pool);
    return new ServiceDatabase(pool, database.jdbcUrl());
  }
}
