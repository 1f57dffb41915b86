package io.tandem.spring.boot;

import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Migrations;
import io.tandem.outbox.OutboxOperations;
import io.tandem.spring.RelayLifecycle;
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
 * Spring Boot 4.0 auto-configuration of Tandem on the application's {@code DataSource}: the {@link
 * TandemOutbox}, Tandem's migrations (unless {@code tandem.migrate=false}) and, unless {@code
 * tandem.relay.enabled=false}, a relay whose lifecycle follows the context.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration"
    })
@ConditionalOnBean(DataSource.class)
public class TandemAutoConfiguration {

  /**
   * The Kafka transport, when tandem-kafka is present and tandem.kafka.bootstrap-servers is set.
   */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.condition.ConditionalOnClass(
      name = "io.tandem.kafka.KafkaTransport")
  @ConditionalOnProperty("tandem.kafka.bootstrap-servers")
  static class KafkaTransportConfiguration {
    @Bean
    @ConditionalOnMissingBean(Transport.class)
    Transport tandemKafkaTransport(
        TandemProperties properties, org.springframework.core.env.Environment environment) {
      return KafkaTransports.create(
          properties.getKafka(), environment.getProperty("spring.application.name", "app"));
    }
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
  public TandemMigrations tandemMigrations(DataSource dataSource) {
    return new TandemMigrations(Migrations.migrate(dataSource));
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
