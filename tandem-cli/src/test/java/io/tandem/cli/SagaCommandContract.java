package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaOrchestrator;
import io.tandem.saga.SagaQueries;
import io.tandem.saga.SagaStatus;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code tandem saga list|show|retry-stuck|purge} on a real orchestrator database; the subclasses
 * choose PostgreSQL or MariaDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SagaCommandContract {
  /** The saga data. */
  public record Order(String orderId) {}

  private IsolatedDatabase db;
  private String url;
  private SagaOrchestrator orchestrator;
  private UUID running;
  private UUID stuck;

  /** The server of the orchestrator's database. */
  abstract DatabaseServer server();

  @BeforeAll
  void twoSagas() throws Exception {
    db = server().createDatabase("cli_saga");
    Migrations.migrate(db.dataSource());
    url = db.jdbcUrl();
    orchestrator =
        SagaOrchestrator.builder()
            .dataSource(db.dataSource())
            .name("orders-orchestrator")
            .replyTo("orders-replies")
            .definition(
                SagaDefinition.builder("place-order", Order.class)
                    .compensatable("reserve", "stock", "Reserve", "Release")
                    .pivot("charge", "payment", "Charge")
                    .build())
            .build();
    running = orchestrator.start("place-order", new Order("o-1"));
    stuck = stuckSaga("o-2");
  }

  /** A saga left STUCK, as the engine leaves one whose compensation keeps failing. */
  private UUID stuckSaga(String orderId) throws Exception {
    UUID id = orchestrator.start("place-order", new Order(orderId));
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE tandem_saga SET status = 'STUCK', last_error = 'bank unavailable'"
                    + " WHERE saga_id = ?")) {
      ps.setObject(1, id);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    return id;
  }

  @AfterAll
  void drop() {
    if (orchestrator != null) {
      orchestrator.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void listShowsEverySagaWithItsStepAndFiltersByStatus() throws Exception {
    Cli all = Cli.run("saga", "list", "--jdbc-url", url);
    assertThat(all.status()).as(all.err()).isZero();
    assertThat(all.out())
        .contains(running.toString(), stuck.toString(), "place-order", "reserve")
        .contains("RUNNING", "STUCK", "bank unavailable")
        .containsPattern("\\d+ sagas\\n$");

    Cli stuckOnly = Cli.run("saga", "list", "--jdbc-url", url, "--status", "stuck", "--json");
    assertThat(stuckOnly.status()).as(stuckOnly.err()).isZero();
    boolean found = false;
    for (String line : stuckOnly.out().strip().split("\n")) {
      JsonNode json = new ObjectMapper().readTree(line);
      assertThat(json.get("status").asText()).isEqualTo("STUCK");
      if (json.get("id").asText().equals(stuck.toString())) {
        found = true;
        assertThat(json.get("step").asText()).isEqualTo("reserve");
        assertThat(json.get("last_error").asText()).isEqualTo("bank unavailable");
      }
    }
    assertThat(found).as("the stuck saga is listed").isTrue();
    assertThat(stuckOnly.out()).doesNotContain(running.toString());

    Cli old = Cli.run("saga", "list", "--jdbc-url", url, "--older-than", "1h");
    assertThat(old.out()).contains("0 sagas").doesNotContain(running.toString());
  }

  @Test
  void showPrintsTheStepLog() throws Exception {
    Cli text = Cli.run("saga", "show", running.toString(), "--jdbc-url", url);
    assertThat(text.status()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("saga " + running + " (place-order): RUNNING")
        .contains("reserve", "Reserve", "PENDING", "\"orderId\":\"o-1\"");

    Cli json = Cli.run("saga", "show", running.toString(), "--jdbc-url", url, "--json");
    JsonNode saga = new ObjectMapper().readTree(json.out());
    assertThat(saga.get("steps")).hasSize(1);
    assertThat(saga.get("steps").get(0).get("command").asText()).isEqualTo("Reserve");
    assertThat(saga.get("steps").get(0).get("kind").asText()).isEqualTo("FORWARD");
  }

  @Test
  void retryStuckPutsOnlyAStuckSagaBack() throws Exception {
    UUID mine = stuckSaga("o-3");
    Cli notStuck = Cli.run("saga", "retry-stuck", running.toString(), "--jdbc-url", url);
    assertThat(notStuck.status()).isEqualTo(2);
    assertThat(notStuck.err()).contains("is RUNNING, not STUCK");

    Cli retried = Cli.run("saga", "retry-stuck", mine.toString(), "--jdbc-url", url);
    assertThat(retried.status()).as(retried.err()).isZero();
    assertThat(retried.out()).contains("is COMPENSATING again");
    assertThat(SagaQueries.of(db.dataSource()).find(mine).orElseThrow().status())
        .isEqualTo(SagaStatus.COMPENSATING);
  }

  @Test
  void purgeCountsFirstAndNeverTouchesUnfinishedSagas() throws Exception {
    UUID old = orchestrator.start("place-order", new Order("o-4"));
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE tandem_saga SET status = 'COMPLETED', ended_at = ? WHERE saga_id = ?")) {
      Dialect.of(c).bindInstant(ps, 1, Instant.now().minus(Duration.ofDays(40)));
      ps.setObject(2, old);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }

    Cli dry = Cli.run("saga", "purge", "--older-than", "30d", "--dry-run", "--jdbc-url", url);
    assertThat(dry.status()).as(dry.err()).isZero();
    assertThat(dry.out())
        .isEqualTo("would delete 1 finished saga that ended more than PT720H ago\n");
    assertThat(SagaQueries.of(db.dataSource()).find(old)).isPresent();

    Cli purged = Cli.run("saga", "purge", "--jdbc-url", url);
    assertThat(purged.out()).startsWith("deleted 1 finished saga ");
    assertThat(SagaQueries.of(db.dataSource()).find(old)).isEmpty();
    assertThat(SagaQueries.of(db.dataSource()).find(running)).as("running: kept").isPresent();
    assertThat(SagaQueries.of(db.dataSource()).find(stuck)).as("stuck: kept").isPresent();
  }

  @Test
  void badInputIsRefusedWithWhatIsWrong() {
    Cli unknown = Cli.run("saga", "show", UUID.randomUUID().toString(), "--jdbc-url", url);
    assertThat(unknown.status()).isEqualTo(2);
    assertThat(unknown.err()).contains("no saga ", "in this database");

    Cli notAnId = Cli.run("saga", "show", "order-7", "--jdbc-url", url);
    assertThat(notAnId.status()).isEqualTo(2);
    assertThat(notAnId.err()).contains("order-7");

    Cli limit = Cli.run("saga", "list", "--jdbc-url", url, "--limit", "0");
    assertThat(limit.status()).isEqualTo(2);
    assertThat(limit.err()).contains("--limit must be between 1 and 10000, was 0");

    Cli unreachable =
        Cli.run("saga", "list", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/orders?password=pw");
    assertThat(unreachable.status()).isEqualTo(2);
    assertThat(unreachable.err())
        .contains("cannot connect to --jdbc-url jdbc:postgresql://127.0.0.1:1/orders?password=***")
        .doesNotContain("password=pw");

    try (IsolatedDatabase empty = server().createDatabase("cli_no_schema")) {
      Cli noSchema = Cli.run("saga", "list", "--jdbc-url", empty.jdbcUrl());
      assertThat(noSchema.status()).isEqualTo(2);
      assertThat(noSchema.err())
          .isEqualTo(
              "tandem saga list: --jdbc-url has no tandem_saga table: is it the right database?"
                  + " (tandem migrate creates Tandem's schema)\n");
    }

    Cli zeroRetention =
        Cli.run(
            "saga",
            "purge",
            "--older-than",
            "0s",
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:1/orders");
    assertThat(zeroRetention.status()).isEqualTo(2);
    assertThat(zeroRetention.err())
        .contains("--older-than must be positive, was PT0S")
        .doesNotContain("cannot connect");

    Cli noDb = Cli.run("saga", "list", "--jdbc-url", "");
    assertThat(noDb.status()).isEqualTo(2);
    assertThat(noDb.err()).contains("no database given");
  }
}
