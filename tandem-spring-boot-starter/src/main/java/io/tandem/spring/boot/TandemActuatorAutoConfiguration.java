package io.tandem.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.outbox.OutboxMetrics;
import io.tandem.outbox.OutboxOperations;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaMetrics;
import io.tandem.spring.RelayLifecycle;
import io.tandem.spring.TandemConsumers;
import io.tandem.spring.TandemHealth;
import io.tandem.spring.TandemProperties;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Boot 4.0's actuator side of Tandem: the {@code tandem} health contributor and the outbox gauges
 * in the application's {@link MeterRegistry}. (Boot 4 moved both: health to {@code
 * org.springframework.boot.health}, metrics to {@code
 * org.springframework.boot.micrometer.metrics}.)
 */
@AutoConfiguration(
    after = TandemAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnBean(OutboxOperations.class)
public class TandemActuatorAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "tandemHealthIndicator")
    TandemHealthIndicator tandemHealthIndicator(
        OutboxOperations operations,
        TandemProperties properties,
        ObjectProvider<RelayLifecycle> relay,
        ObjectProvider<TandemConsumers> consumers,
        DataSource dataSource) {
      return new TandemHealthIndicator(
          TandemHealth.of(
              dataSource,
              operations,
              properties,
              () -> {
                RelayLifecycle r = relay.getIfAvailable();
                return r == null ? null : r.relay();
              },
              () -> {
                TandemConsumers c = consumers.getIfAvailable();
                return c == null ? java.util.List.of() : c.consumerNames();
              }));
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(MeterRegistry.class)
  static class Metrics {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    OutboxMetrics tandemOutboxMetrics(
        MeterRegistry registry, OutboxOperations operations, TandemProperties properties) {
      return OutboxMetrics.register(
          registry, operations, properties.getMetrics().getRefreshInterval());
    }

    /** The saga gauges (instances per status, STUCK), when the application defines sagas. */
    @Bean(destroyMethod = "close")
    @ConditionalOnBean(SagaDefinition.class)
    @ConditionalOnMissingBean
    SagaMetrics tandemSagaMetrics(
        MeterRegistry registry, DataSource dataSource, TandemProperties properties) {
      return SagaMetrics.register(
          registry, dataSource, properties.getSaga().getMetricsRefreshInterval());
    }
  }
}
