package io.tandem.spring.boot3;

import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Migrations;
import io.tandem.outbox.OutboxOperations;
import io.tandem.spring.BrokerConfigured;
import io.tandem.spring.RelayLifecycle;
import io.tandem.spring.TandemBroker;
import io.tandem.spring.TandemConsumersConfiguration;
import io.tandem.spring.TandemOutbox;
import io.tandem.spring.TandemProperties;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot 3.5 auto-configuration of Tandem on the application's {@code DataSource}: the {@link
 * TandemOutbox}, Tandem's migrations (through the application's Flyway when it has one; unless
 * {@code tandem.migrate=false}), unless {@code tandem.relay.enabled=false} a relay whose lifecycle
 * follows the context, the transport {@code tandem.transport} chooses, the {@code @TandemHandler}
 * and saga participant consumers and the saga orchestrator ({@link TandemConsumersConfiguration}).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration"
    })
@ConditionalOnBean(DataSource.class)
@org.springframework.context.annotation.Import(TandemConsumersConfiguration.class)
public class TandemAutoConfiguration {

  /**
   * The relay's transport from the broker tandem.transport chose, unless the application has one.
   */
  @Bean
  @org.springframework.context.annotation.Conditional(BrokerConfigured.class)
  @ConditionalOnMissingBean(Transport.class)
  Transport tandemTransport(TandemBroker broker) {
    return broker.transport();
  }

  @Bean
  @ConfigurationProperties("tandem")
  @ConditionalOnMissingBean
  public TandemProperties tandemProperties() {
    return new TandemProperties();
  }

  /** Applies the migrations when created: before any bean that writes to the outbox. */
  @Bean
  @ConditionalOnProperty(name = "tandem.migrate", havingValue = "true", matchIfMissing = true)
  public TandemMigrations tandemMigrations(
      DataSource dataSource,
      ObjectProvider<org.flywaydb.core.Flyway> flyway,
      org.springframework.beans.factory.BeanFactory beans) {
    org.flywaydb.core.Flyway app = flyway.getIfAvailable();
    if (app == null) {
      return new TandemMigrations(Migrations.migrate(dataSource));
    }
    // The application's migrations first: Flyway refuses a first migration on a schema that is
    // not empty (Tandem's tables), unless baseline-on-migrate. Boot names its runner so.
    if (beans.containsBean("flywayInitializer")) {
      beans.getBean("flywayInitializer");
    }
    return new TandemMigrations(Migrations.migrateWith(app.getConfiguration()));
  }

  @Bean
  @ConditionalOnMissingBean
  public TandemOutbox tandemOutbox(
      DataSource dataSource, ObjectProvider<TandemMigrations> migrations) {
    migrations.ifAvailable(m -> {});
    return new TandemOutbox(dataSource);
  }

  @Bean
  @ConditionalOnMissingBean
  public OutboxOperations tandemOutboxOperations(
      DataSource dataSource, ObjectProvider<TandemMigrations> migrations) {
    migrations.ifAvailable(m -> {});
    return OutboxOperations.create(dataSource);
  }

  @Bean
  @ConditionalOnProperty(name = "tandem.relay.enabled", havingValue = "true", matchIfMissing = true)
  @ConditionalOnMissingBean
  public RelayLifecycle tandemRelay(
      DataSource dataSource,
      TandemProperties properties,
      ObjectProvider<Transport> transport,
      ObjectProvider<io.micrometer.core.instrument.MeterRegistry> meters,
      ObjectProvider<TandemMigrations> migrations) {
    migrations.ifAvailable(m -> {});
    return RelayLifecycle.of(
        dataSource, properties.getRelay(), transport.getIfAvailable(), meters.getIfAvailable());
  }
}
