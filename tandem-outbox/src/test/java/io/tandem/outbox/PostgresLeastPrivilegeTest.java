package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The least-privilege setup of docs/security.md, applied from the script Tandem ships ({@code
 * io/tandem/jdbc/least-privilege/postgresql.sql}) to roles created on the machine's PostgreSQL:
 * each role can do its part, with Tandem's own code, and cannot do what would lose an event. And
 * TRUNCATE, which no row trigger sees, is refused even to the owner unless asked for on purpose.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresLeastPrivilegeTest {
  private static final List<String> ROLES =
      List.of("app", "relay", "retention", "operator", "consumer", "orchestrator");
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private IsolatedDatabase db;

  @BeforeAll
  void rolesWithTheShippedGrants() throws Exception {
    db = TestInfrastructure.postgres().createDatabase("least_privilege");
    Migrations.migrate(db.dataSource());
    String script;
    try (InputStream in =
        Migrations.class.getResourceAsStream("/io/tandem/jdbc/least-privilege/postgresql.sql")) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection owner = db.dataSource().getConnection();
        Statement s = owner.createStatement()) {
      for (String role : ROLES) {
        s.execute("CREATE ROLE " + role(role) + " LOGIN");
        script = script.replace("tandem_" + role + "_role", role(role));
      }
      s.execute(script);
    }
  }

  /** How a test empties a guarded table: on purpose, in the same transaction (V13). */
  @BeforeEach
  void emptyOutbox() throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("SET LOCAL tandem.allow_truncate = 'on'");
      s.execute("TRUNCATE tandem_outbox");
      c.commit();
    }
  }

  @AfterAll
  void dropRoles() throws SQLException {
    try (Connection owner = db.dataSource().getConnection();
        Statement s = owner.createStatement()) {
      for (String role : ROLES) {
        s.execute("DROP OWNED BY " + role(role));
        s.execute("DROP ROLE " + role(role));
      }
    } finally {
      db.close();
    }
  }

  private String role(String name) {
    return "tandem_lp_" + name + "_" + suffix;
  }

  private PGSimpleDataSource as(String name) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(db.jdbcUrl().replaceFirst("user=[^&]*", "user=" + role(name)));
    return ds;
  }

  private static void refused(PGSimpleDataSource ds, String sql, String expected) {
    assertThatThrownBy(
            () -> {
              try (Connection c = ds.getConnection();
                  Statement s = c.createStatement()) {
                s.execute(sql);
              }
            })
        .as(sql)
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(e.getMessage().toLowerCase(Locale.ROOT)).contains(expected));
  }

  private static Event event(String aggregate) {
    return Event.builder()
        .aggregate("Order", aggregate, 1)
        .eventType("OrderPlaced")
        .payload("{}")
        .build();
  }

  private void append(PGSimpleDataSource ds, Event e) {
    Transactions.inTransaction(
        ds,
        c -> {
          Outbox.create(Dialect.of(c)).append(c, e);
          return null;
        });
  }

  private long count(String where) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*) FROM tandem_outbox WHERE " + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void theApplicationAppendsAndCanDoNothingElseOnTheOutbox() throws Exception {
    PGSimpleDataSource app = as("app");
    Event e = event("app-1");
    append(app, e);
    assertThat(count("event_id = '" + e.eventId() + "'")).isEqualTo(1);
    refused(app, "SELECT * FROM tandem_outbox", "permission denied");
    refused(app, "UPDATE tandem_outbox SET published_at = now()", "permission denied");
    refused(app, "DELETE FROM tandem_outbox", "permission denied");
    refused(app, "TRUNCATE tandem_outbox", "permission denied");
  }

  @Test
  void theRelayPublishesButCanNeitherDeleteNorEditAnEvent() throws Exception {
    append(as("app"), event("relay-1"));
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(as("relay"))
            .transport(transport)
            .relayId("lp-relay")
            .publishTimeout(Duration.ofSeconds(5))
            .build()) {
      while (relay.runOnce() > 0) {
        // until nothing is due
      }
    }
    assertThat(transport.acknowledged).extracting(Event::aggregateId).contains("relay-1");
    assertThat(count("aggregate_id = 'relay-1' AND published_at IS NOT NULL")).isEqualTo(1);
    PGSimpleDataSource relay = as("relay");
    refused(relay, "DELETE FROM tandem_outbox", "permission denied");
    refused(relay, "UPDATE tandem_outbox SET payload = '{}'", "permission denied");
    refused(relay, "UPDATE tandem_outbox SET skipped_at = now()", "permission denied");
    refused(
        relay,
        "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id, aggregate_version,"
            + " event_type, payload) VALUES (gen_random_uuid(), 'Order', 'x', 1, 'T', '{}')",
        "permission denied");
    refused(relay, "TRUNCATE tandem_outbox", "permission denied");
  }

  /** The path the delete guard alone cannot stop needs two credentials now: no role has both. */
  @Test
  void retentionDeletesOnlyPublishedRowsAndCannotMarkOne() throws Exception {
    Event pending = event("retention-pending");
    Event old = event("retention-old");
    append(as("app"), old);
    append(as("app"), pending);
    try (Connection owner = db.dataSource().getConnection();
        Statement s = owner.createStatement()) {
      s.executeUpdate(
          "UPDATE tandem_outbox SET published_at = now() - interval '30 days'"
              + " WHERE event_id = '"
              + old.eventId()
              + "'");
    }
    PGSimpleDataSource retention = as("retention");
    refused(
        retention,
        "UPDATE tandem_outbox SET published_at = now() WHERE event_id = '"
            + pending.eventId()
            + "'",
        "permission denied");
    refused(
        retention,
        "DELETE FROM tandem_outbox WHERE event_id = '" + pending.eventId() + "'",
        "not published yet");
    OutboxRetention.builder().dataSource(retention).retention(Duration.ofDays(7)).build().run();
    assertThat(count("event_id = '" + old.eventId() + "'")).as("published, old: deleted").isZero();
    assertThat(count("event_id = '" + pending.eventId() + "'")).as("pending: kept").isOne();
    refused(retention, "TRUNCATE tandem_outbox", "permission denied");
  }

  @Test
  void theOperatorReplaysAndSkipsButCannotPublishOrDelete() {
    PGSimpleDataSource operator = as("operator");
    Event e = event("operator-1");
    append(as("app"), e);
    OutboxOperations.create(operator).skip(e.eventId(), "refunded by hand, ticket 42");
    refused(operator, "UPDATE tandem_outbox SET published_at = now()", "permission denied");
    refused(operator, "DELETE FROM tandem_outbox", "permission denied");
  }

  @Test
  void consumersAndOrchestratorsCannotDeleteTheirHistory() {
    for (String table : List.of("tandem_inbox", "tandem_dead_letter", "tandem_inbox_position")) {
      refused(as("consumer"), "DELETE FROM " + table, "permission denied");
    }
    for (String table : List.of("tandem_saga", "tandem_saga_step", "tandem_saga_participation")) {
      refused(as("orchestrator"), "DELETE FROM " + table, "permission denied");
    }
  }

  @Test
  void truncateIsRefusedEvenToTheOwnerUnlessAskedForInTheSameTransaction() throws Exception {
    append(as("app"), event("truncate-1"));
    PGSimpleDataSource owner = new PGSimpleDataSource();
    owner.setURL(db.jdbcUrl());
    for (String table :
        List.of(
            "tandem_outbox",
            "tandem_inbox",
            "tandem_inbox_position",
            "tandem_inbox_parked",
            "tandem_dead_letter",
            "tandem_saga",
            "tandem_saga_step",
            "tandem_saga_participation",
            "tandem_xa_decision",
            "tandem_xa_resolution")) {
      refused(owner, "TRUNCATE " + table, "truncate " + table + " refused");
    }
    assertThat(count("true")).isPositive();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("SET LOCAL tandem.allow_truncate = 'on'");
      s.execute("TRUNCATE tandem_outbox");
      c.commit();
    }
    assertThat(count("true")).as("emptied on purpose").isZero();
  }
}
