package io.tandem.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaParticipant;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The Boot-agnostic beans both starters import: the {@link TandemBroker} {@code tandem.transport}
 * chooses, the {@link TandemHandler} methods' and saga participants' consumers ({@link
 * TandemConsumers}) and the orchestrator of the {@link SagaDefinition} beans ({@link TandemSagas}).
 * Needs a {@link TandemProperties} bean and the application's {@code DataSource}.
 */
@Configuration(proxyBeanMethods = false)
public class TandemConsumersConfiguration {

  @Bean
  static TandemHandlerMethods tandemHandlerMethods() {
    return new TandemHandlerMethods();
  }

  @Bean
  @Conditional(BrokerConfigured.class)
  TandemBroker tandemBroker(TandemProperties properties, Environment environment) {
    return TandemBrokers.of(properties, applicationName(environment));
  }

  @Bean
  TandemConsumers tandemConsumers(
      DataSource dataSource,
      TandemHandlerMethods handlers,
      ObjectProvider<SagaParticipant> participants,
      ObjectProvider<TandemBroker> broker,
      TandemProperties properties,
      ObjectProvider<MeterRegistry> meters) {
    if (!properties.getConsumer().isEnabled()) {
      return new TandemConsumers(
          dataSource,
          new TandemHandlerMethods(),
          java.util.List.of(),
          () -> null,
          properties.getConsumer(),
          null);
    }
    return new TandemConsumers(
        dataSource,
        handlers,
        participants.orderedStream().toList(),
        broker::getIfAvailable,
        properties.getConsumer(),
        meters.getIfAvailable());
  }

  @Bean
  TandemSagas tandemSagas(
      DataSource dataSource,
      ObjectProvider<SagaDefinition<?>> definitions,
      TandemProperties properties,
      Environment environment,
      ObjectProvider<TandemBroker> broker,
      ObjectProvider<MeterRegistry> meters) {
    return new TandemSagas(
        dataSource,
        definitions.orderedStream().toList(),
        properties.getSaga(),
        applicationName(environment),
        broker::getIfAvailable,
        meters.getIfAvailable());
  }

  static String applicationName(Environment environment) {
    return environment.getProperty("spring.application.name", "app");
  }
}
