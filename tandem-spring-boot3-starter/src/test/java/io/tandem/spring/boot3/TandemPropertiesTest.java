package io.tandem.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.outbox.OutboxMetrics;
import io.tandem.spring.RelayLifecycle;
import io.tandem.spring.TandemOutbox;
import io.tandem.spring.TandemProperties;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Binding and validation of {@code tandem.*}, with {@link ApplicationContextRunner} (no Kafka: the
 * relay is off unless a test turns it on). A migrated schema is shared; the {@code migrate=false}
 * case gets its own empty database.
 */
class TandemPropertiesTest {
  static IsolatedDatabase database;
  static IsolatedDatabase empty;

  static ApplicationContextRunner runner(IsolatedDatabase db) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                TandemAutoConfiguration.class,
                TandemActuatorAutoConfiguration.class))
        .withPropertyValues("spring.datasource.url=" + db.jdbcUrl());
  }

  @BeforeAll
  static void createDatabases() {
    database = TestInfrastructure.postgres().createDatabase("boot3_properties_test");
    empty = TestInfrastructure.postgres().createDatabase("boot3_nomigrate_test");
  }

  @AfterAll
  static void dropDatabases() {
    database.close();
    empty.close();
  }

  @Test
  void propertiesBindWithRelaxedNamesAndDurations() {
    runner(database)
        .withPropertyValues(
            "tandem.relay.enabled=false",
            "tandem.relay.batch-size=50",
            "tandem.relay.lease-duration=45s",
            "tandem.health.max-oldest-pending-age=2m",
            "tandem.kafka.topic-prefix=shop.")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(TandemOutbox.class);
              assertThat(context).doesNotHaveBean(RelayLifecycle.class);
              TandemProperties p = context.getBean(TandemProperties.class);
              assertThat(p.getRelay().getBatchSize()).isEqualTo(50);
              assertThat(p.getRelay().getLeaseDuration()).isEqualTo(Duration.ofSeconds(45));
              assertThat(p.getHealth().getMaxOldestPendingAge()).isEqualTo(Duration.ofMinutes(2));
              assertThat(p.getKafka().getTopicPrefix()).isEqualTo("shop.");
            });
  }

  @Test
  void aBadPropertyFailsTheStartNamingItAndTheRule() {
    runner(database)
        .withPropertyValues("tandem.relay.enabled=false", "tandem.relay.batch-size=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("tandem.relay")
                    .hasMessageContaining("batchSize must be between 1 and 10000, was 0")
                    .satisfies(e -> System.out.println("start failed as expected: " + e)));
    runner(database)
        .withPropertyValues(
            "tandem.relay.enabled=false",
            "tandem.relay.lease-duration=5s",
            "tandem.relay.publish-timeout=10s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("must exceed publishTimeout + heartbeatInterval"));
    runner(database)
        .withPropertyValues("tandem.relay.enabled=false", "tandem.health.max-oldest-pending-age=0s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("health.maxOldestPendingAge")
                    .hasMessageContaining("must be a positive duration"));
  }

  @Test
  void anEnabledRelayWithoutATransportFailsTheStartNamingTheFix() {
    runner(database)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("no transport")
                    .hasMessageContaining("tandem.kafka.bootstrap-servers")
                    .hasMessageContaining("tandem.relay.enabled=false"));
  }

  @Test
  void migrateFalseLeavesTheSchemaAlone() {
    runner(empty)
        .withPropertyValues("tandem.relay.enabled=false", "tandem.migrate=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(TandemMigrations.class);
              assertThat(outboxTableCount(new JdbcTemplate(context.getBean(DataSource.class))))
                  .isZero();
            });
    runner(database)
        .withPropertyValues("tandem.relay.enabled=false")
        .run(
            context ->
                assertThat(outboxTableCount(new JdbcTemplate(context.getBean(DataSource.class))))
                    .isOne());
  }

  @Test
  void withoutTheActuatorOrAMeterRegistryTheRestStillStarts() {
    runner(database)
        .withPropertyValues("tandem.relay.enabled=false")
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(TandemOutbox.class)
                    .doesNotHaveBean(TandemHealthIndicator.class)
                    .doesNotHaveBean(OutboxMetrics.class));
  }

  private static long outboxTableCount(JdbcTemplate jdbc) {
    return jdbc.queryForObject(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'tandem_outbox'",
        Long.class);
  }
}
