package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.FaultInjector;
import io.tandem.testkit.RequiresMariaDb;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The coordinator against the machine's PostgreSQL (max_prepared_transactions > 0) and MariaDB: the
 * commit and rollback paths, one-phase commits, and recovery after a coordinator that died in each
 * window of the protocol (simulated in this JVM; the SIGKILL versions are in XaCrashTest).
 */
@RequiresMariaDb
class XaCoordinatorTest {
  static Bank bank;

  @BeforeAll
  static void databases() throws SQLException {
    bank = new Bank("xa_coordinator");
  }

  @AfterAll
  static void drop() {
    if (bank != null) {
      bank.close();
    }
  }

  @AfterEach
  void finishWhatATestLeft() {
    bank.finishLeftovers();
  }

  @Test
  void aTransferCommitsOnBothDatabasesAndTheDecisionIsForgotten() throws Exception {
    try (XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      xa.start();
      long before = bank.account("alice");
      long ledger = bank.ledger("alice");

      xa.inTransaction(tx -> Bank.transfer(tx, "alice", 10));

      assertThat(bank.account("alice")).isEqualTo(before - 10);
      assertThat(bank.ledger("alice")).isEqualTo(ledger + 10);
      assertThat(bank.decisions()).as("the commit decision is forgotten after phase 2").isZero();
      assertThat(bank.preparedOfNode()).isZero();
      assertThat(xa.count(XaOutcome.COMMITTED)).isEqualTo(1);
      assertThat(xa.onePhaseCommits()).isZero();
    }
  }

  @Test
  void workThatThrowsRollsBackBothBranchesAndPassesItsExceptionThrough() throws Exception {
    try (XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      xa.start();
      long before = bank.account("bob");
      long ledger = bank.ledger("bob");

      assertThatThrownBy(
              () ->
                  xa.inTransaction(
                      tx -> {
                        Bank.transfer(tx, "bob", 5);
                        throw new SQLException("insufficient funds");
                      }))
          .isInstanceOf(SQLException.class)
          .hasMessage("insufficient funds");

      assertThat(bank.account("bob")).isEqualTo(before);
      assertThat(bank.ledger("bob")).isEqualTo(ledger);
      assertThat(bank.preparedOfNode()).isZero();
    }
  }

  @Test
  void aBranchThatCannotPrepareRollsBackTheWholeTransaction() throws Exception {
    try (Connection c = bank.postgres.dataSource().getConnection();
        Statement s = c.createStatement()) {
      // Checked at PREPARE TRANSACTION, i.e. in phase 1: the branch votes no.
      s.execute(
          "CREATE TABLE IF NOT EXISTS transfer_ref (ref text,"
              + " CONSTRAINT transfer_ref_unique UNIQUE (ref) DEFERRABLE INITIALLY DEFERRED)");
    }
    try (XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      xa.start();
      long before = bank.account("alice");
      long ledger = bank.ledger("alice");

      assertThatThrownBy(
              () ->
                  xa.inTransaction(
                      tx -> {
                        Bank.transfer(tx, "alice", 7);
                        try (PreparedStatement ps =
                            tx.connection("accounts")
                                .prepareStatement(
                                    "INSERT INTO transfer_ref VALUES ('r1'), ('r1')")) {
                          ps.executeUpdate();
                        }
                        return null;
                      }))
          .isInstanceOf(XaRollbackException.class)
          .hasMessageContaining("did not prepare");

      assertThat(bank.account("alice")).isEqualTo(before);
      assertThat(bank.ledger("alice"))
          .as("the prepared MariaDB branch rolled back")
          .isEqualTo(ledger);
      assertThat(bank.preparedOfNode()).isZero();
      assertThat(bank.decisions()).isZero();
    }
  }

  @Test
  void aSoleWriterCommitsInOnePhaseWithoutTheDecisionLog() throws Exception {
    try (XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      xa.start();
      long ledger = bank.ledger("bob");

      // The PostgreSQL branch only reads; the MariaDB branch writes.
      xa.inTransaction(
          tx -> {
            try (Statement s = tx.connection("accounts").createStatement()) {
              s.executeQuery("SELECT balance FROM accounts WHERE id = 'bob'").close();
            }
            try (Statement s = tx.connection("ledger").createStatement()) {
              s.executeUpdate("UPDATE ledger SET balance = balance + 1 WHERE id = 'bob'");
            }
            return null;
          });
      // Only one participant at all.
      xa.inTransaction(
          tx -> {
            try (Statement s = tx.connection("accounts").createStatement()) {
              s.executeUpdate("UPDATE accounts SET balance = balance + 0 WHERE id = 'bob'");
            }
            return null;
          });

      assertThat(bank.ledger("bob")).isEqualTo(ledger + 1);
      assertThat(xa.onePhaseCommits()).isEqualTo(2);
      assertThat(xa.count(XaOutcome.COMMITTED)).isEqualTo(2);
      assertThat(bank.decisions()).isZero();
    }
  }

  @Test
  void aCoordinatorThatDiesAfterPrepareIsRolledBackByRecovery() throws Exception {
    long before = bank.account("alice");
    long ledger = bank.ledger("alice");
    crashAt(FaultInjector.XA_AFTER_PREPARE);
    assertThat(bank.preparedOfNode()).as("both branches are left prepared").isEqualTo(2);
    assertThat(bank.decisions()).isZero();

    try (XaCoordinator restarted =
        bank.coordinator(bank.settings().presumeAbortAfter(Duration.ofMillis(1)).build()).build()) {
      RecoveryReport report = restarted.start();

      assertThat(report.presumedAborted()).isEqualTo(2);
      assertThat(report.committed()).isZero();
    }
    assertThat(bank.account("alice")).isEqualTo(before);
    assertThat(bank.ledger("alice")).isEqualTo(ledger);
    assertThat(bank.preparedOfNode()).isZero();
  }

  @Test
  void aCoordinatorThatDiesAfterItsDecisionIsCommittedByRecovery() throws Exception {
    long before = bank.account("alice");
    long ledger = bank.ledger("alice");
    crashAt(FaultInjector.XA_AFTER_DECISION);
    assertThat(bank.preparedOfNode()).isEqualTo(2);
    assertThat(bank.decisions()).isEqualTo(1);

    try (XaCoordinator restarted = bank.coordinator(bank.settings().build()).build()) {
      RecoveryReport report = restarted.start();

      assertThat(report.committed()).isEqualTo(2);
      assertThat(report.forgotten()).isEqualTo(0); // listed as prepared in this very pass
      assertThat(restarted.recover().forgotten()).isEqualTo(1);
    }
    assertThat(bank.account("alice")).isEqualTo(before - 3);
    assertThat(bank.ledger("alice")).isEqualTo(ledger + 3);
    assertThat(bank.preparedOfNode()).isZero();
    assertThat(bank.decisions()).isZero();
  }

  @Test
  void aCoordinatorThatDiesInPhaseTwoIsFinishedByRecovery() throws Exception {
    long before = bank.account("bob");
    long ledger = bank.ledger("bob");
    crashAt(FaultInjector.XA_MID_PHASE_TWO, "bob");
    assertThat(bank.account("bob")).as("the first branch committed").isEqualTo(before - 3);
    assertThat(bank.preparedOfNode()).as("the second is still prepared").isEqualTo(1);

    try (XaCoordinator restarted = bank.coordinator(bank.settings().build()).build()) {
      RecoveryReport report = restarted.start();
      assertThat(report.committed()).isEqualTo(1);
    }
    assertThat(bank.ledger("bob")).isEqualTo(ledger + 3);
    assertThat(bank.preparedOfNode()).isZero();
  }

  @Test
  void anUndecidedBranchYoungerThanTheMarginIsLeftAlone() throws Exception {
    crashAt(FaultInjector.XA_AFTER_PREPARE);
    try (XaCoordinator restarted =
        bank.coordinator(bank.settings().presumeAbortAfter(Duration.ofHours(1)).build()).build()) {
      RecoveryReport report = restarted.start();
      assertThat(report.waiting()).isEqualTo(2);
      assertThat(report.presumedAborted()).isZero();
    }
    assertThat(bank.preparedOfNode()).isEqualTo(2);
    bank.finishLeftovers();
    assertThat(bank.preparedOfNode()).isZero();
  }

  @Test
  void aLateCommitDecisionLosesToTheRollbackRecoveryRecorded() throws Exception {
    long before = bank.account("alice");
    // Recovery runs while the coordinator stalls between prepare and decision.
    FaultInjector recoverMeanwhile =
        point -> {
          if (point.equals(FaultInjector.XA_AFTER_PREPARE)) {
            try (XaOperations ops = bank.operations()) {
              assertThat(ops.recover(bank.node, Duration.ofMillis(1)).presumedAborted())
                  .isEqualTo(2);
            }
          }
        };
    try (XaCoordinator xa =
        bank.coordinator(bank.settings().build()).faults(recoverMeanwhile).build()) {
      xa.start();
      assertThatThrownBy(() -> xa.inTransaction(tx -> Bank.transfer(tx, "alice", 9)))
          .isInstanceOf(XaRollbackException.class)
          .hasMessageContaining("recovery had presumed the transaction aborted");
    }
    assertThat(bank.account("alice")).isEqualTo(before);
    assertThat(bank.preparedOfNode()).isZero();
  }

  private static void crashAt(String point) {
    crashAt(point, "alice");
  }

  /** Runs a transfer of 3 whose coordinator "dies" at {@code point}, leaving its branches. */
  private static void crashAt(String point, String who) {
    FaultInjector faults =
        p -> {
          if (p.equals(point)) {
            throw new FaultInjector.SimulatedCrash(p);
          }
        };
    try (XaCoordinator xa = bank.coordinator(bank.settings().build()).faults(faults).build()) {
      xa.start();
      assertThatThrownBy(() -> xa.inTransaction(tx -> Bank.transfer(tx, who, 3)))
          .isInstanceOf(FaultInjector.SimulatedCrash.class);
    }
  }
}
