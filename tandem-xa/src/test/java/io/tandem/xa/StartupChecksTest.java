package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.xa.PGXADataSource;

/** start() stops with what to change when a participant cannot take part. */
@RequiresMariaDb
class StartupChecksTest {

  @Test
  @Tag("slow") // starts an embedded PostgreSQL
  void aPostgresWithoutPreparedTransactionsStopsTheCoordinatorWithWhatToChange() throws Exception {
    // The embedded server runs with PostgreSQL's default, max_prepared_transactions = 0.
    try (PostgresServer server = PostgresServer.embedded().start();
        IsolatedDatabase db = server.createDatabase("xa_startup");
        Bank bank = new Bank(db, "xa_startup")) {
      XaCoordinator xa = bank.coordinator(bank.settings().build()).build();

      assertThatThrownBy(xa::start)
          .isInstanceOf(XaConfigurationException.class)
          .hasMessageContaining("participant 'accounts'")
          .hasMessageContaining("max_prepared_transactions = 0")
          .hasMessageContaining("Set max_prepared_transactions to at least 16")
          .hasMessageContaining("restart PostgreSQL");
      assertThatThrownBy(() -> xa.inTransaction(tx -> null))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("call start()");
      xa.close();
    }
  }

  @Test
  void theMachinesServersPassTheChecks() throws Exception {
    try (Bank bank = new Bank("xa_startup_ok");
        XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      RecoveryReport first = xa.start();
      assertThat(first.failures()).isEmpty();
      assertThat(first.unreachable()).isEmpty();
    }
  }

  @Test
  void aDecisionLogWithoutItsTableIsRefusedAtBuild() {
    IsolatedDatabase empty = TestInfrastructure.postgres().createDatabase("xa_no_schema");
    try {
      PGXADataSource pg = new PGXADataSource();
      pg.setUrl(empty.jdbcUrl());
      assertThatThrownBy(
              () ->
                  XaCoordinator.builder()
                      .settings(XaSettings.defaults("n1"))
                      .decisionLog(empty.dataSource())
                      .participant("accounts", pg)
                      .build())
          .isInstanceOf(XaConfigurationException.class)
          .hasMessageContaining("no tandem_xa_decision table")
          .hasMessageContaining("Migrations.migrate, or tandem migrate");
    } finally {
      empty.close();
    }
  }

  @Test
  void tandemsPreparedTransactionsOwnedByAnotherUserAreReported() throws Exception {
    String role = "xa_other_" + UUID.randomUUID().toString().substring(0, 8);
    try (Bank bank = new Bank("xa_owner")) {
      try (Connection c = bank.postgres.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE ROLE " + role + " LOGIN");
        s.execute("GRANT ALL ON accounts TO " + role);
        s.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role);
      }
      // A branch prepared by the superuser; the coordinator then connects as the other role.
      try (XaCoordinator xa =
          bank.coordinator(bank.settings().build())
              .faults(
                  p -> {
                    if (p.equals(io.tandem.core.FaultInjector.XA_AFTER_PREPARE)) {
                      throw new io.tandem.core.FaultInjector.SimulatedCrash(p);
                    }
                  })
              .build()) {
        xa.start();
        assertThatThrownBy(() -> xa.inTransaction(tx -> Bank.transfer(tx, "alice", 1)))
            .isInstanceOf(io.tandem.core.FaultInjector.SimulatedCrash.class);
      }
      PGXADataSource asOther = new PGXADataSource();
      asOther.setUrl(bank.postgres.jdbcUrl().replace("user=postgres", "user=" + role));
      XaCoordinator other =
          XaCoordinator.builder()
              .settings(bank.settings().build())
              .decisionLog(bank.coordinatorDatabase())
              .participant("accounts", asOther)
              .participant("ledger", bank.ledgerXa())
              .build();
      assertThatThrownBy(other::start)
          .isInstanceOf(XaConfigurationException.class)
          .hasMessageContaining("owned by 'postgres' cannot be finished by this user")
          .hasMessageContaining("connect as 'postgres' or as a superuser");
      other.close();
    } finally {
      try (Connection c = TestInfrastructure.postgres().dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP ROLE IF EXISTS " + role);
      } catch (java.sql.SQLException e) {
        // owned objects went with the database
      }
    }
  }
}
