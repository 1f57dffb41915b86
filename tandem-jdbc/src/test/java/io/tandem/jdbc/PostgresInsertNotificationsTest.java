package io.tandem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The outbox's insert notification on PostgreSQL: the trigger notifies only while some relay
 * instance says it listens, and the listener records its switches in its instance row.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresInsertNotificationsTest {
  private IsolatedDatabase database;
  private DataSource dataSource;
  private int aggregate;

  @BeforeAll
  void createDatabase() {
    database = TestInfrastructure.postgres().createDatabase("insert_notify");
    dataSource = database.dataSource();
    Migrations.migrate(dataSource);
  }

  @AfterAll
  void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @BeforeEach
  void clean() throws SQLException {
    execute("DELETE FROM tandem_relay_instance");
  }

  @Test
  void theTriggerNotifiesOnlyWhileSomeRelayInstanceListens() throws Exception {
    try (Connection listen = dataSource.getConnection()) {
      execute(listen, "LISTEN " + PostgresDialect.OUTBOX_CHANNEL);
      PGConnection pg = listen.unwrap(PGConnection.class);

      insertEvent();
      assertThat(notifications(pg)).as("no relay instance at all").isZero();

      execute("INSERT INTO tandem_relay_instance (relay_id, host) VALUES ('a', 'h')");
      insertEvent();
      assertThat(notifications(pg)).as("a new instance listens by default").isEqualTo(1);

      execute("UPDATE tandem_relay_instance SET listening = false WHERE relay_id = 'a'");
      insertEvent();
      assertThat(notifications(pg)).as("its only instance is busy reading").isZero();

      execute("INSERT INTO tandem_relay_instance (relay_id, host) VALUES ('b', 'h')");
      insertEvent();
      assertThat(notifications(pg)).as("another instance listens").isEqualTo(1);
    }
  }

  @Test
  void theListenerRecordsItsSwitchesAndCallsBackWhenItListensAgain() throws Exception {
    execute("INSERT INTO tandem_relay_instance (relay_id, host) VALUES ('r', 'h')");
    AtomicInteger calls = new AtomicInteger();
    try (InsertNotifications listener =
        PostgresDialect.INSTANCE
            .listenForOutboxInserts(dataSource, "r", calls::incrementAndGet, Duration.ofSeconds(1))
            .orElseThrow()) {
      awaitTrue(() -> calls.get() >= 1, "the call after LISTEN");
      int afterStart = calls.get();
      insertEvent();
      awaitTrue(() -> calls.get() > afterStart, "a call for the insert");

      listener.setListening(false);
      assertThat(listener.isListening()).isFalse();
      awaitTrue(() -> !listening("r"), "the instance row says it no longer listens");
      int whileOff = calls.get();
      insertEvent();
      insertEvent();
      Thread.sleep(700);
      assertThat(calls.get()).as("no calls while switched off").isEqualTo(whileOff);

      listener.setListening(true);
      awaitTrue(() -> listening("r"), "the instance row says it listens");
      awaitTrue(() -> calls.get() == whileOff + 1, "one call once listening again");
      insertEvent();
      awaitTrue(() -> calls.get() == whileOff + 2, "a call for the next insert");
    }
  }

  private int notifications(PGConnection pg) throws SQLException {
    int n = 0;
    long end = System.nanoTime() + Duration.ofMillis(500).toNanos();
    while (System.nanoTime() < end) {
      PGNotification[] got = pg.getNotifications(100);
      n += got == null ? 0 : got.length;
    }
    return n;
  }

  private boolean listening(String relayId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT listening FROM tandem_relay_instance WHERE relay_id = ?")) {
      ps.setString(1, relayId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void insertEvent() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id,"
                    + " aggregate_version, event_type, schema_version, payload, headers,"
                    + " occurred_at) VALUES (?, 'Order', ?, 1, 'OrderPlaced', 1, '{}', '{}', now())")) {
      ps.setObject(1, UUID.randomUUID());
      ps.setString(2, "o-" + aggregate++);
      ps.executeUpdate();
    }
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      execute(c, sql);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static void awaitTrue(BooleanSupplier condition, String what)
      throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within 5 s: " + what);
      }
      Thread.sleep(10);
    }
  }
}
