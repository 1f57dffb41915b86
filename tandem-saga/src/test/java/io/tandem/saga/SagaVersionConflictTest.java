package io.tandem.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.Outcome;
import io.tandem.jdbc.Migrations;
import io.tandem.saga.internal.SagaHeaders;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replies of one batch share a transaction; a reply whose saga row changed under it (another writer
 * moved the version on between its read and its write) is rolled back to its savepoint and applied
 * again alone — the other replies of the batch commit, nothing is sent twice.
 */
class SagaVersionConflictTest {
  public record Order(String id) {}

  private IsolatedDatabase db;
  private SagaOrchestrator orchestrator;
  private final MeterRegistry meters = new SimpleMeterRegistry();

  @BeforeEach
  void world() throws Exception {
    db = TestInfrastructure.postgres().createDatabase("saga_version_conflict");
    Migrations.migrate(db.dataSource());
    orchestrator =
        SagaOrchestrator.builder()
            .dataSource(db.dataSource())
            .name("conflict-orchestrator")
            .replyTo("conflict-replies")
            .definition(
                SagaDefinition.builder("order", Order.class)
                    .compensatable("create", "orders", "Create", "Cancel")
                    .pivot("pay", "payment", "Pay")
                    .build())
            .meterRegistry(meters)
            .build();
  }

  @AfterEach
  void close() {
    orchestrator.close();
  }

  @Test
  void aReplyWhoseSagaChangedUnderItIsAppliedAgainAloneAndTheRestOfTheBatchCommits()
      throws Exception {
    UUID contested = orchestrator.start("order", new Order("a"));
    UUID quiet = orchestrator.start("order", new Order("b"));
    List<InboundMessage> batch = List.of(reply(contested), reply(quiet));

    CompletableFuture<List<Outcome>> outcomes;
    try (Connection other = db.dataSource().getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement ps =
          other.prepareStatement(
              "UPDATE tandem_saga SET version = version + 1 WHERE saga_id = ?")) {
        ps.setObject(1, contested);
        ps.executeUpdate(); // holds the row, with a newer version, until it commits
      }
      outcomes = CompletableFuture.supplyAsync(() -> orchestrator.replyProcessor().process(batch));
      Awaitility.await().atMost(Duration.ofSeconds(20)).until(this::anotherSessionWaitsForARowLock);
      other.commit();
    }

    assertThat(outcomes.get()).containsExactly(Outcome.APPLIED, Outcome.APPLIED);
    assertThat(meters.counter("tandem.saga.version.conflicts", "type", "order").count())
        .as("the contested reply lost the race once")
        .isEqualTo(1.0);
    for (UUID id : List.of(contested, quiet)) {
      SagaInstance s = orchestrator.find(id).orElseThrow();
      assertThat(s.currentStep()).as("saga %s moved on", id).isEqualTo("pay");
      assertThat(s.steps())
          .as("one command per step: the rolled-back attempt sent nothing")
          .extracting(SagaStepRecord::step)
          .containsExactly("create", "pay");
    }
  }

  private boolean anotherSessionWaitsForARowLock() throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock'");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1) > 0;
    }
  }

  private InboundMessage reply(UUID sagaId) {
    SagaStepRecord command = orchestrator.find(sagaId).orElseThrow().steps().get(0);
    Event e =
        Event.builder()
            .aggregate("conflict-replies", sagaId + "/" + command.seq() + "/orders", 1)
            .eventType(SagaHeaders.SUCCEEDED)
            .payload("{}")
            .headers(
                EventHeaders.builder()
                    .put(SagaHeaders.SAGA_ID, sagaId.toString())
                    .put(SagaHeaders.STEP, command.step())
                    .put(SagaHeaders.KIND, SagaHeaders.FORWARD)
                    .put(SagaHeaders.ATTEMPT, "1")
                    .put(SagaHeaders.COMMAND_ID, command.commandId().toString())
                    .build())
            .occurredAt(Instant.now())
            .build();
    return new InboundMessage() {
      @Override
      public String key() {
        return e.aggregateId();
      }

      @Override
      public String origin() {
        return "test " + e.eventId();
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
