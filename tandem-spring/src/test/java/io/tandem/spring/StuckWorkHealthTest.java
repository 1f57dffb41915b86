package io.tandem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.InboxOperations;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Migrations;
import io.tandem.saga.SagaQueries;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The stuck-work half of the {@code tandem} health component on a real database: UP when nothing
 * waits; DOWN with a reason naming the command when a saga is STUCK or a listed consumer has a gap
 * older than the limit; a listed consumer's figures in the details.
 */
class StuckWorkHealthTest {

  @Test
  void downOnAStuckSagaOrAnOverdueGapUpOtherwise() throws Exception {
    try (IsolatedDatabase db = TestInfrastructure.postgres().createDatabase("spring_stuck")) {
      Migrations.migrate(db.dataSource());
      StuckWorkHealth health =
          new StuckWorkHealth(
              SagaQueries.of(db.dataSource()),
              InboxOperations.create(db.dataSource()),
              List.of("billing"),
              Duration.ofMillis(50));

      BacklogHealth.Result idle = health.check();
      assertThat(idle.up()).isTrue();
      assertThat(idle.details())
          .containsEntry("stuckSagas", 0)
          .containsEntry(
              "consumers", Map.of("billing", Map.of("overdueGaps", 0, "openDeadLetters", 0L)));

      // version 2 arrives without version 1: parked, a gap that ages
      InboxProcessor billing =
          InboxProcessor.builder()
              .dataSource(db.dataSource())
              .consumer("billing")
              .on("OrderPlaced", (c, e) -> {})
              .build();
      billing.process(
          message(
              Event.builder()
                  .aggregate("Order", "o-1", 2)
                  .eventType("OrderPlaced")
                  .payload("{}")
                  .build()));
      Thread.sleep(100);
      BacklogHealth.Result gap = health.check();
      assertThat(gap.up()).isFalse();
      assertThat((String) gap.details().get("stuckWork"))
          .contains("consumer billing has 1 gap")
          .contains("tandem inbox gaps --consumer billing");

      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "INSERT INTO tandem_saga (saga_id, saga_type, status, step_index, attempt, data, version)"
                + " VALUES ('"
                + UUID.randomUUID()
                + "', 'checkout', 'STUCK', 1, 1, '{}', 1)");
      }
      BacklogHealth.Result stuck = health.check();
      assertThat(stuck.up()).isFalse();
      assertThat(stuck.details()).containsEntry("stuckSagas", 1);
      assertThat((String) stuck.details().get("stuckWork"))
          .startsWith("1 saga is STUCK (tandem saga list --status stuck; then retry-stuck)");
    }
  }

  private static InboundMessage message(Event e) {
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
        return e.payload().getBytes(java.nio.charset.StandardCharsets.UTF_8);
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
