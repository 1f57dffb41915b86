package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.jdbc.PostgresDialect;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestEvents;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * An XA branch that appends to the PostgreSQL outbox while a relay listens: PostgreSQL refuses to
 * PREPARE a transaction that ran NOTIFY, and the outbox's insert trigger notifies while a relay
 * listens. Since V12 the trigger leaves the notification to the coordinator, which wakes the relays
 * after the commit.
 */
@RequiresMariaDb
class XaOutboxTest {
  static Bank bank;
  static final Outbox OUTBOX = Outbox.create();

  @BeforeAll
  static void databases() throws SQLException {
    bank = new Bank("xa_outbox");
    try (Connection c = bank.postgres.dataSource().getConnection();
        Statement s = c.createStatement()) {
      // A relay instance that listens (the trigger notifies only then).
      s.execute("INSERT INTO tandem_relay_instance (relay_id, host) VALUES ('relay-1', 'h')");
    }
  }

  @AfterAll
  static void drop() {
    if (bank != null) {
      bank.close();
    }
  }

  @Test
  void aTwoPhaseTransferThatAppendsToTheOutboxCommitsAndWakesTheRelay() throws Exception {
    Event event = TestEvents.event("account", "alice-" + UUID.randomUUID(), 1);
    try (Connection listen = bank.postgres.dataSource().getConnection();
        XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      try (Statement s = listen.createStatement()) {
        s.execute("LISTEN " + PostgresDialect.OUTBOX_CHANNEL);
      }
      xa.start();
      long before = bank.account("alice");

      xa.inTransaction(
          tx -> {
            Bank.transfer(tx, "alice", 4);
            OUTBOX.append(tx.connection("accounts"), event);
            return null;
          });

      assertThat(xa.count(XaOutcome.COMMITTED)).isEqualTo(1);
      assertThat(xa.onePhaseCommits()).as("two branches wrote: two phases").isZero();
      assertThat(bank.account("alice")).isEqualTo(before - 4);
      assertThat(outboxRows(event)).isEqualTo(1);
      assertThat(notifications(listen)).as("the coordinator woke the relay").isPositive();
    }
  }

  @Test
  void aOnePhaseBranchThatAppendsToTheOutboxAlsoWakesTheRelay() throws Exception {
    Event event = TestEvents.event("account", "bob-" + UUID.randomUUID(), 1);
    try (Connection listen = bank.postgres.dataSource().getConnection();
        XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      try (Statement s = listen.createStatement()) {
        s.execute("LISTEN " + PostgresDialect.OUTBOX_CHANNEL);
      }
      xa.start();

      xa.inTransaction(
          tx -> {
            OUTBOX.append(tx.connection("accounts"), event);
            return null;
          });

      assertThat(xa.onePhaseCommits()).isEqualTo(1);
      assertThat(outboxRows(event)).isEqualTo(1);
      assertThat(notifications(listen)).isPositive();
    }
  }

  @Test
  void outsideAnXaBranchTheTriggerStillNotifiesItself() throws Exception {
    Event event = TestEvents.event("account", "carol-" + UUID.randomUUID(), 1);
    try (Connection listen = bank.postgres.dataSource().getConnection();
        Connection write = bank.postgres.dataSource().getConnection()) {
      try (Statement s = listen.createStatement()) {
        s.execute("LISTEN " + PostgresDialect.OUTBOX_CHANNEL);
      }
      write.setAutoCommit(false);
      OUTBOX.append(write, event);
      write.commit();
      assertThat(notifications(listen)).isEqualTo(1);
    }
  }

  private static long outboxRows(Event event) throws SQLException {
    try (Connection c = bank.postgres.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM tandem_outbox WHERE event_id = '" + event.eventId() + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static int notifications(Connection listen) throws SQLException {
    PGNotification[] n = listen.unwrap(PGConnection.class).getNotifications(5_000);
    return n == null ? 0 : n.length;
  }
}
