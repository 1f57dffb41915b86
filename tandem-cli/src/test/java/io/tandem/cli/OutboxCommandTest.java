package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code tandem outbox status|quarantined|replay|skip|retention} on a real outbox. */
class OutboxCommandTest {
  private IsolatedDatabase db;
  private String url;
  private final Map<String, UUID> ids = new HashMap<>();

  /** o-1 quarantined, o-2 published ten days ago, o-3 and o-4 pending. */
  @BeforeEach
  void anOutbox() throws Exception {
    db = TestInfrastructure.postgres().createDatabase("cli_outbox");
    url = db.jdbcUrl();
    Migrations.migrate(db.dataSource());
    Outbox outbox = Outbox.create(Dialect.of(db.dataSource()));
    for (int i = 1; i <= 4; i++) {
      Event e =
          Event.builder()
              .aggregate("Order", "o-" + i, 1)
              .eventType("OrderPlaced")
              .payload("{}")
              .build();
      ids.put("o-" + i, e.eventId());
      Transactions.inTransaction(
          db.dataSource(),
          conn -> {
            outbox.append(conn, e);
            return null;
          });
    }
    sql(
        "UPDATE tandem_outbox SET quarantined_at = now(), attempts = 3,"
            + " error_class = 'PERMANENT', last_error = 'schema rejected by the broker'"
            + " WHERE aggregate_id = 'o-1'");
    sql(
        "UPDATE tandem_outbox SET published_at = now() - interval '10 days'"
            + " WHERE aggregate_id = 'o-2'");
  }

  private void sql(String statement) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(statement)) {
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  @AfterEach
  void drop() {
    db.close();
  }

  @Test
  void statusSaysTheBacklogAndExitsWith3WhileNoRelayDrainsIt() throws Exception {
    Cli stranded = Cli.run("outbox", "status", "--jdbc-url", url);
    assertThat(stranded.status()).as("pending events, no relay: stranded").isEqualTo(3);
    assertThat(stranded.out())
        .contains("pending 2", "quarantined 1", "skipped 0", "published 1", "relays: 0")
        .contains("64 unowned", "STRANDED: no relay drains it");

    // a relay holds every partition now
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE tandem_relay_partition SET owner = 'relay-a', epoch = 1,"
                    + " lease_until = now() + interval '1 minute', acquired_at = now()")) {
      assertThat(ps.executeUpdate()).isEqualTo(64);
    }
    Cli held = Cli.run("outbox", "status", "--jdbc-url", url, "--json");
    assertThat(held.status()).as(held.err()).isZero();
    JsonNode status = new ObjectMapper().readTree(held.out());
    assertThat(status.get("pending").asLong()).isEqualTo(2);
    assertThat(status.get("quarantined").asLong()).isEqualTo(1);
    assertThat(status.get("oldest_pending_age_ms").asLong()).isNotNegative();
    assertThat(status.get("stranded_partitions").asInt()).isZero();
    assertThat(status.get("partitions")).hasSize(64);
    assertThat(status.get("partitions").get(0).get("owner").asText()).isEqualTo("relay-a");
  }

  @Test
  void aQuarantinedEventIsListedThenReplayedOnce() {
    Cli listed = Cli.run("outbox", "quarantined", "--jdbc-url", url);
    assertThat(listed.status()).as(listed.err()).isZero();
    assertThat(listed.out())
        .contains(ids.get("o-1").toString(), "Order/o-1 v1", "schema rejected", "1 quarantined");

    Cli replayed = Cli.run("outbox", "replay", ids.get("o-1").toString(), "--jdbc-url", url);
    assertThat(replayed.status()).as(replayed.err()).isZero();
    assertThat(Cli.run("outbox", "quarantined", "--jdbc-url", url).out()).contains("0 quarantined");
    assertThat(Cli.run("outbox", "status", "--jdbc-url", url).out()).contains("pending 3");

    Cli again = Cli.run("outbox", "replay", ids.get("o-1").toString(), "--jdbc-url", url);
    assertThat(again.status()).isEqualTo(2);
    assertThat(again.err()).contains("is not quarantined");

    Cli neither = Cli.run("outbox", "replay", "--jdbc-url", url);
    assertThat(neither.status()).isEqualTo(2);
    assertThat(neither.err()).contains("give either one EVENT_ID or --all");
    Cli all = Cli.run("outbox", "replay", "--all", "--jdbc-url", url);
    assertThat(all.out()).contains("0 quarantined events back to pending");
  }

  @Test
  void skipNeedsAReasonAndHappensOnce() {
    String id = ids.get("o-3").toString();
    Cli noReason = Cli.run("outbox", "skip", id, "--jdbc-url", url);
    assertThat(noReason.status()).isEqualTo(2);
    assertThat(noReason.err()).contains("--reason");

    Cli skipped = Cli.run("outbox", "skip", id, "--reason", "superseded, OPS-1", "--jdbc-url", url);
    assertThat(skipped.status()).as(skipped.err()).isZero();
    assertThat(Cli.run("outbox", "status", "--jdbc-url", url).out())
        .contains("pending 1", "skipped 1");

    Cli again = Cli.run("outbox", "skip", id, "--reason", "twice", "--jdbc-url", url);
    assertThat(again.status()).isEqualTo(2);
    assertThat(again.err()).contains("cannot be skipped");
  }

  @Test
  void retentionCountsFirstThenDeletesOnlyOldPublishedRows() {
    Cli dry = Cli.run("outbox", "retention", "--older-than", "7d", "--dry-run", "--jdbc-url", url);
    assertThat(dry.status()).as(dry.err()).isZero();
    assertThat(dry.out()).startsWith("would delete 1 published rows older than PT168H");

    Cli young =
        Cli.run("outbox", "retention", "--older-than", "30d", "--dry-run", "--jdbc-url", url);
    assertThat(young.out()).startsWith("would delete 0 ");

    Cli run = Cli.run("outbox", "retention", "--older-than", "7d", "--jdbc-url", url);
    assertThat(run.out()).startsWith("deleted 1 published rows");
    assertThat(Cli.run("outbox", "status", "--jdbc-url", url).out())
        .contains("pending 2", "quarantined 1", "published 0");

    Cli bad = Cli.run("outbox", "retention", "--older-than", "7x", "--jdbc-url", url);
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("'7x' is not a duration");
  }

  @Test
  void badSettingsAndLimitsAreRefusedBeforeConnecting() {
    String unreachable = "jdbc:postgresql://127.0.0.1:1/orders";
    Cli tooShort = Cli.run("outbox", "retention", "--older-than", "30s", "--jdbc-url", unreachable);
    assertThat(tooShort.status()).isEqualTo(2);
    assertThat(tooShort.err())
        .contains("--older-than must be at least one minute, was PT30S")
        .doesNotContain("cannot connect");

    Cli limit = Cli.run("outbox", "quarantined", "--limit", "0", "--jdbc-url", unreachable);
    assertThat(limit.status()).isEqualTo(2);
    assertThat(limit.err())
        .contains("--limit must be between 1 and 10000, was 0")
        .doesNotContain("cannot connect");
  }
}
