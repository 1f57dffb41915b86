package io.tandem.spring.boottest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaInstance;
import io.tandem.saga.SagaParticipant;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.StepResult;
import io.tandem.spring.TandemConsumers;
import io.tandem.spring.TandemHandler;
import io.tandem.spring.TandemOutbox;
import io.tandem.spring.TandemSagas;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter's features beyond the outbox, shared by both Boot lines (each starter's test extends
 * this class and runs it on its own Boot): {@code @TandemHandler} methods in the inbox transaction,
 * a saga defined by beans run end to end, transport chosen by {@code tandem.transport} (Redis here,
 * the machine's server), and Tandem's migrations through the application's Flyway.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractStarterFeaturesTest {
  static final String TYPE = "BootOrder";
  static IsolatedDatabase database;
  static ConfigurableApplicationContext context;

  /**
   * The role the application's Flyway connects as (spring.flyway.user): it owns what it creates.
   */
  static final String MIGRATOR = "tandem_boot_migrator";

  public record Placed(String orderId, boolean fail) {}

  public record Pay(String orderId) {}

  /** An application's handler bean: it writes through JdbcTemplate, not the inbox connection. */
  public static class ShippingHandler {
    private final JdbcTemplate jdbc;

    public ShippingHandler(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @TandemHandler(consumer = "boot-shipping", aggregateType = TYPE, eventType = "OrderPlaced")
    public void ship(Placed placed, Event event) {
      jdbc.update(
          "INSERT INTO shipments (event_id, order_id) VALUES (?, ?)",
          event.eventId(),
          placed.orderId());
      if (placed.fail()) {
        throw new IllegalStateException("no courier for " + placed.orderId());
      }
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  public static class App {
    @Bean
    ShippingHandler shippingHandler(JdbcTemplate jdbc) {
      return new ShippingHandler(jdbc);
    }

    @Bean
    SagaDefinition<Pay> paySaga() {
      return SagaDefinition.builder("boot-pay", Pay.class)
          .retriable("charge", "bootpay", "Charge")
          .build();
    }

    @Bean
    SagaParticipant payParticipant(DataSource dataSource, JdbcTemplate jdbc) {
      return SagaParticipant.builder()
          .dataSource(dataSource)
          .name("bootpay")
          .command(
              "Charge",
              (connection, command) -> {
                try (var ps =
                    connection.prepareStatement("INSERT INTO charges (saga_id) VALUES (?)")) {
                  ps.setObject(1, command.sagaId());
                  ps.executeUpdate();
                }
                return StepResult.success();
              })
          .build();
    }
  }

  /** The database name's prefix, one per Boot line. */
  protected abstract String line();

  @BeforeAll
  void startApp() {
    database = TestInfrastructure.postgres().createDatabase(line() + "_features");
    JdbcTemplate plain = new JdbcTemplate(database.dataSource());
    // the application's tables come from its own Flyway (db/app-migration)
    plain.execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"
            + MIGRATOR
            + "') THEN CREATE ROLE "
            + MIGRATOR
            + " LOGIN SUPERUSER; END IF; END $$");
    context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.application.name=" + line() + "-features",
                "spring.flyway.locations=classpath:db/app-migration",
                "spring.flyway.url="
                    + database.jdbcUrl().replace("user=postgres", "user=" + MIGRATOR),
                "spring.flyway.user=" + MIGRATOR,
                "tandem.transport=redis",
                "tandem.redis.uri=redis://127.0.0.1:6379",
                "tandem.relay.poll-interval=200ms",
                "tandem.consumer.max-attempts=2",
                "tandem.consumer.retry-base=10ms",
                "tandem.consumer.retry-cap=20ms")
            .run();
  }

  @AfterAll
  void stopApp() {
    if (context != null) {
      context.close();
      context = null;
    }
    if (database != null) {
      database.close();
    }
  }

  static JdbcTemplate jdbc() {
    return context.getBean(JdbcTemplate.class);
  }

  static Event placed(String orderId, boolean fail) {
    return Event.builder()
        .aggregate(TYPE, orderId, 1)
        .eventType("OrderPlaced")
        .payload("{\"orderId\":\"" + orderId + "\",\"fail\":" + fail + "}")
        .build();
  }

  static long shipments(Event e) {
    return jdbc()
        .queryForObject(
            "SELECT count(*) FROM shipments WHERE event_id = ?", Long.class, e.eventId());
  }

  static long inboxRows(Event e) {
    return jdbc()
        .queryForObject(
            "SELECT count(*) FROM tandem_inbox WHERE event_id = ?", Long.class, e.eventId());
  }

  static InboxProcessor shipping() {
    return context.getBean(TandemConsumers.class).handlerProcessors().get("boot-shipping");
  }

  @Test
  void anAnnotatedHandlersWriteCommitsWithTheInboxRecordAndADuplicateRunsNothing() {
    Event e = placed("o-" + UUID.randomUUID(), false);
    InboxProcessor shipping = shipping();
    shipping.process(message(e));
    shipping.process(message(e)); // redelivered
    assertThat(shipments(e)).isOne();
    assertThat(inboxRows(e)).isOne();
  }

  @Test
  void aFailingHandlerRollsBackItsWriteWithTheInboxRecordAndIsDeadLettered() {
    Event e = placed("o-" + UUID.randomUUID(), true);
    InboxProcessor shipping = shipping();
    // retried (tandem.consumer.max-attempts=2), each attempt rolled back, then dead-lettered
    assertThat(shipping.process(message(e))).isEqualTo(Outcome.DEAD_LETTERED);
    assertThat(shipments(e)).isZero();
    assertThat(inboxRows(e)).isZero();
    assertThat(
            jdbc()
                .queryForObject(
                    "SELECT count(*) FROM tandem_dead_letter WHERE event_id = ?",
                    Long.class,
                    e.eventId()))
        .isOne();
  }

  @Test
  void anEventAppendedInATransactionReachesTheAnnotatedHandlerThroughRedisOnce() throws Exception {
    Event e = placed("o-" + UUID.randomUUID(), false);
    TransactionTemplate tx = context.getBean(TransactionTemplate.class);
    tx.executeWithoutResult(s -> context.getBean(TandemOutbox.class).append(e));
    await().atMost(Duration.ofSeconds(30)).until(() -> shipments(e) > 0);
    Thread.sleep(500); // room for a duplicate
    assertThat(shipments(e)).isOne();
  }

  @Test
  void aSagaDefinedByBeansRunsToCompletionThroughTheManagedOrchestratorAndParticipant() {
    TandemSagas sagas = context.getBean(TandemSagas.class);
    UUID id = sagas.start("boot-pay", new Pay("o-1"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                sagas.orchestrator().find(id).map(SagaInstance::status).orElse(null)
                    == SagaStatus.COMPLETED);
    assertThat(
            jdbc().queryForObject("SELECT count(*) FROM charges WHERE saga_id = ?", Long.class, id))
        .isOne();
  }

  @Test
  void aSagaStartedInsideARolledBackTransactionLeavesNothing() {
    TandemSagas sagas = context.getBean(TandemSagas.class);
    TransactionTemplate tx = context.getBean(TransactionTemplate.class);
    UUID[] id = new UUID[1];
    assertThatThrownBy(
            () ->
                tx.executeWithoutResult(
                    s -> {
                      id[0] = sagas.start("boot-pay", new Pay("o-2"));
                      throw new IllegalStateException("rolled back");
                    }))
        .hasMessage("rolled back");
    assertThat(sagas.orchestrator().find(id[0])).isEmpty();
  }

  @Test
  void tandemsMigrationsRanThroughTheApplicationsFlywayWithTheirOwnHistoryTable() {
    // spring.flyway.user reached Tandem's run too: its role owns Tandem's tables
    for (String table : List.of("app_table", "tandem_outbox", "tandem_schema_history")) {
      assertThat(
              jdbc()
                  .queryForObject(
                      "SELECT tableowner FROM pg_tables WHERE tablename = ?", String.class, table))
          .as(table)
          .isEqualTo(MIGRATOR);
    }
    assertThat(
            jdbc()
                .queryForObject(
                    "SELECT count(*) FROM flyway_schema_history WHERE script = 'V1__app_table.sql'",
                    Long.class))
        .isOne();
    assertThat(
            jdbc()
                .queryForObject(
                    "SELECT count(*) FROM tandem_schema_history WHERE script LIKE 'V1\\_\\_%'",
                    Long.class))
        .isOne();
    assertThat(
            jdbc()
                .queryForObject(
                    "SELECT count(*) FROM flyway_schema_history WHERE script LIKE '%outbox%'",
                    Long.class))
        .isZero();
  }

  @Test
  void withoutTheApplicationsFlywayTandemMigratesOnItsOwn() {
    try (IsolatedDatabase db = TestInfrastructure.postgres().createDatabase(line() + "_noflyway");
        ConfigurableApplicationContext plain =
            new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties(
                    "spring.datasource.url=" + db.jdbcUrl(),
                    "spring.flyway.enabled=false",
                    "tandem.relay.enabled=false",
                    "tandem.consumer.enabled=false",
                    "tandem.saga.enabled=false")
                .run()) {
      JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
      assertThat(
              jdbc.queryForObject(
                  "SELECT count(*) FROM tandem_schema_history WHERE success", Long.class))
          .isGreaterThan(10L);
      assertThat(
              jdbc.queryForObject(
                  "SELECT count(*) FROM information_schema.tables"
                      + " WHERE table_name = 'flyway_schema_history'",
                  Long.class))
          .isZero();
    }
  }

  @Test
  void anUnknownTransportFailsTheStartNamingThePropertyAndTheChoices() {
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(App.class)
                    .web(WebApplicationType.NONE)
                    .properties(
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.flyway.enabled=false",
                        "tandem.migrate=false",
                        "tandem.transport=pulsar")
                    .run()
                    .close())
        .satisfies(
            e -> {
              StringBuilder all = new StringBuilder();
              for (Throwable t = e; t != null; t = t.getCause()) {
                all.append(t.getMessage()).append('\n');
              }
              assertThat(all.toString())
                  .contains("tandem.transport")
                  .contains("must be one of kafka, rabbitmq, nats, redis, was 'pulsar'");
            });
  }

  static InboundMessage message(Event e) {
    return new InboundMessage() {
      @Override
      public String key() {
        return e.aggregateId();
      }

      @Override
      public String origin() {
        return "test";
      }

      @Override
      public Map<String, String> rawHeaders() {
        return Map.of();
      }

      @Override
      public byte[] rawBody() {
        return e.payload().getBytes(StandardCharsets.UTF_8);
      }

      @Override
      public Event decode() {
        return e;
      }

      @Override
      public void acknowledge() {}
    };
  }
}
