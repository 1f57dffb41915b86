package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * The least-privilege setup of docs/security.md on MariaDB, applied from the script Tandem ships
 * ({@code io/tandem/jdbc/least-privilege/mariadb.sql}) to accounts created on the machine's
 * MariaDB: the application appends and can do nothing else on the outbox; the relay claims,
 * publishes and marks but can neither delete nor edit an event; retention deletes only published
 * rows and cannot mark one; none of them may TRUNCATE. The accounts are dropped afterwards.
 */
@RequiresMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbLeastPrivilegeTest {
  private static final List<String> ROLES =
      List.of("app", "relay", "retention", "operator", "consumer", "orchestrator");
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String password = UUID.randomUUID().toString();
  private IsolatedDatabase db;

  @BeforeAll
  void accountsWithTheShippedGrants() throws Exception {
    db = TestInfrastructure.mariadb().createDatabase("least_privilege");
    Migrations.migrate(db.dataSource());
    String script;
    try (InputStream in =
        Migrations.class.getResourceAsStream("/io/tandem/jdbc/least-privilege/mariadb.sql")) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection owner = db.dataSource().getConnection();
        Statement s = owner.createStatement()) {
      for (String role : ROLES) {
        s.execute("CREATE USER " + account(role) + " IDENTIFIED BY '" + password + "'");
        script = script.replace("tandem_" + role + "_role", account(role));
      }
      for (String statement : statements(script)) {
        s.execute(statement);
      }
    }
  }

  @AfterAll
  void dropAccounts() throws SQLException {
    try (Connection owner = db.dataSource().getConnection();
        Statement s = owner.createStatement()) {
      for (String role : ROLES) {
        s.execute("DROP USER IF EXISTS " + account(role));
      }
    } finally {
      db.close();
    }
  }

  /** The script's statements: comment lines dropped, split at the ';' that ends a line. */
  private static List<String> statements(String script) {
    StringBuilder sql = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    return java.util.Arrays.stream(sql.toString().split(";\\s*\n"))
        .map(String::strip)
        .filter(st -> !st.isEmpty())
        .toList();
  }

  private String user(String role) {
    return "tandem_lp_" + role + "_" + suffix;
  }

  private String account(String role) {
    return "'" + user(role) + "'@'%'";
  }

  private MariaDbDataSource as(String role) throws SQLException {
    String url =
        db.jdbcUrl().replaceFirst("user=[^&]*", "user=" + user(role)) + "&password=" + password;
    return new MariaDbDataSource(url);
  }

  private static void refused(MariaDbDataSource ds, String sql, String expected) {
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

  private void append(MariaDbDataSource ds, Event e) {
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
    MariaDbDataSource app = as("app");
    Event e = event("app-1");
    append(app, e);
    assertThat(count("aggregate_id = 'app-1'")).isEqualTo(1);
    refused(app, "SELECT * FROM tandem_outbox", "command denied");
    refused(app, "UPDATE tandem_outbox SET published_at = now()", "command denied");
    refused(app, "DELETE FROM tandem_outbox", "command denied");
    refused(app, "TRUNCATE tandem_outbox", "command denied");
  }

  @Test
  void theRelayPublishesButCanNeitherDeleteNorEditAnEvent() throws Exception {
    append(as("app"), event("relay-1"));
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(as("relay"))
            .transport(transport)
            .relayId("lp-relay-" + suffix)
            .publishTimeout(Duration.ofSeconds(5))
            .build()) {
      while (relay.runOnce() > 0) {
        // until nothing is due
      }
    }
    assertThat(transport.acknowledged).extracting(Event::aggregateId).contains("relay-1");
    assertThat(count("aggregate_id = 'relay-1' AND published_at IS NOT NULL")).isEqualTo(1);
    MariaDbDataSource relay = as("relay");
    refused(relay, "DELETE FROM tandem_outbox", "command denied");
    refused(relay, "UPDATE tandem_outbox SET payload = '{}'", "command denied");
    refused(relay, "UPDATE tandem_outbox SET skipped_at = now()", "command denied");
    refused(
        relay,
        "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id, aggregate_version,"
            + " event_type, payload) VALUES (UUID(), 'Order', 'x', 1, 'T', '{}')",
        "command denied");
    refused(relay, "TRUNCATE tandem_outbox", "command denied");
  }

  /** The path the delete guard alone cannot stop needs two accounts: no account has both. */
  @Test
  void retentionDeletesOnlyPublishedRowsAndCannotMarkOne() throws Exception {
    Event pending = event("retention-pending");
    Event old = event("retention-old");
    append(as("app"), old);
    append(as("app"), pending);
    try (Connection owner = db.dataSource().getConnection();
        Statement s = owner.createStatement()) {
      s.executeUpdate(
          "UPDATE tandem_outbox SET published_at = now() - INTERVAL 30 DAY"
              + " WHERE aggregate_id = 'retention-old'");
    }
    MariaDbDataSource retention = as("retention");
    refused(
        retention,
        "UPDATE tandem_outbox SET published_at = now() WHERE aggregate_id = 'retention-pending'",
        "command denied");
    refused(
        retention,
        "DELETE FROM tandem_outbox WHERE aggregate_id = 'retention-pending'",
        "not published");
    OutboxRetention.builder().dataSource(retention).retention(Duration.ofDays(7)).build().run();
    assertThat(count("aggregate_id = 'retention-old'")).as("published, old: deleted").isZero();
    assertThat(count("aggregate_id = 'retention-pending'")).as("pending: kept").isOne();
    refused(retention, "TRUNCATE tandem_outbox", "command denied");
  }

  @Test
  void theOperatorSkipsButCannotPublishOrDelete() throws Exception {
    MariaDbDataSource operator = as("operator");
    Event e = event("operator-1");
    append(as("app"), e);
    OutboxOperations.create(operator).skip(e.eventId(), "refunded by hand, ticket 42");
    assertThat(count("aggregate_id = 'operator-1' AND skipped_at IS NOT NULL")).isOne();
    refused(operator, "UPDATE tandem_outbox SET published_at = now()", "command denied");
    refused(operator, "DELETE FROM tandem_outbox", "command denied");
  }

  @Test
  void consumersAndOrchestratorsCannotDeleteTheirHistory() throws Exception {
    for (String table : List.of("tandem_inbox", "tandem_dead_letter", "tandem_inbox_position")) {
      refused(as("consumer"), "DELETE FROM " + table, "command denied");
    }
    for (String table : List.of("tandem_saga", "tandem_saga_step", "tandem_saga_participation")) {
      refused(as("orchestrator"), "DELETE FROM " + table, "command denied");
    }
  }
}
