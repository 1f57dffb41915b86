package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.FaultInjector;
import io.tandem.testkit.RequiresMariaDb;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's tooling on the machine's servers: in-doubt branches listed with their locks and
 * the sessions they block, released by resolve, the resolution recorded; a prepared transaction
 * made by hand listed as foreign and never touched.
 */
@RequiresMariaDb
class XaOperationsTest {
  static Bank bank;
  final ExecutorService blocked = Executors.newCachedThreadPool();

  @BeforeAll
  static void databases() throws SQLException {
    bank = new Bank("xa_operations");
  }

  @AfterAll
  static void drop() {
    if (bank != null) {
      bank.close();
    }
  }

  @AfterEach
  void finishWhatATestLeft() {
    blocked.shutdownNow();
    bank.finishLeftovers();
  }

  /** A transfer of 2 for alice whose coordinator dies at {@code point}; returns its id. */
  private static GlobalTransactionId leaveInDoubt(String point) {
    GlobalTransactionId[] id = new GlobalTransactionId[1];
    try (XaCoordinator xa =
        bank.coordinator(bank.settings().build())
            .faults(
                p -> {
                  if (p.equals(point)) {
                    throw new FaultInjector.SimulatedCrash(p);
                  }
                })
            .build()) {
      xa.start();
      assertThatThrownBy(
              () ->
                  xa.inTransaction(
                      tx -> {
                        id[0] = tx.id();
                        return Bank.transfer(tx, "alice", 2);
                      }))
          .isInstanceOf(FaultInjector.SimulatedCrash.class);
    }
    return id[0];
  }

  @Test
  void anInDoubtBranchShowsItsLocksAndBlockedSessionsAndResolveReleasesThem() throws Exception {
    GlobalTransactionId id = leaveInDoubt(FaultInjector.XA_AFTER_PREPARE);
    long before = bank.account("alice");
    // A writer waits for the in-doubt branch's row lock on each database.
    CompletableFuture<Integer> pgWriter = update(bank.postgres.dataSource(), "accounts");
    CompletableFuture<Integer> mariaWriter = update(bank.mariadb.dataSource(), "ledger");

    try (XaOperations ops = bank.operations()) {
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                XaStatus status = ops.status();
                PreparedBranch accounts = branch(status, id, "accounts");
                assertThat(accounts.locks()).anyMatch(l -> l.contains("on accounts"));
                assertThat(accounts.blockedSessions()).isEqualTo(1);
                assertThat(accounts.owner()).contains("postgres");
                assertThat(accounts.decision()).as("presumed abort: nothing logged").isEmpty();
                PreparedBranch ledger = branch(status, id, "ledger");
                assertThat(ledger.node()).contains(bank.node);
                assertThat(status.oldestInDoubt()).isPresent();
              });
      assertThat(pgWriter).isNotDone();
      assertThat(mariaWriter).isNotDone();

      Resolution r = ops.resolve(id, XaDecision.ROLLBACK, "alice-operator", "test", false);

      assertThat(r.complete()).isTrue();
      assertThat(r.branches()).containsOnlyKeys("accounts", "ledger");
      assertThat(r.loggedBefore()).isEmpty();
      assertThat(pgWriter.get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(mariaWriter.get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(ops.status().branches())
          .noneMatch(b -> b.global().equals(java.util.Optional.of(id)));
    }
    assertThat(bank.account("alice")).as("the branch's debit was rolled back").isEqualTo(before);
    try (Connection c = bank.postgres.dataSource().getConnection();
        Statement s = c.createStatement();
        var rs =
            s.executeQuery(
                "SELECT action, logged_before, operator, reason, branches FROM tandem_xa_resolution"
                    + " WHERE gtrid = '"
                    + id
                    + "'")) {
      assertThat(rs.next()).as("the resolution is recorded").isTrue();
      assertThat(rs.getString("action")).isEqualTo("ROLLBACK");
      assertThat(rs.getString("logged_before")).isNull();
      assertThat(rs.getString("operator")).isEqualTo("alice-operator");
      assertThat(rs.getString("branches")).isEqualTo("accounts=ROLLED_BACK,ledger=ROLLED_BACK");
    }
  }

  @Test
  void resolveRefusesToGoAgainstTheLoggedDecisionUnlessForced() {
    GlobalTransactionId id = leaveInDoubt(FaultInjector.XA_AFTER_DECISION);
    try (XaOperations ops = bank.operations()) {
      assertThat(branch(ops.status(), id, "accounts").decision()).contains(XaDecision.COMMIT);
      assertThatThrownBy(() -> ops.resolve(id, XaDecision.ROLLBACK, "op", null, false))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("the decision log holds COMMIT")
          .hasMessageContaining("would split the transaction");
      assertThat(ops.status().tandemBranches()).hasSize(2);

      Resolution r = ops.resolve(id, XaDecision.COMMIT, "op", null, false);
      assertThat(r.loggedBefore()).contains(XaDecision.COMMIT);
      assertThat(r.complete()).isTrue();
    }
  }

  @Test
  void aPreparedTransactionMadeByHandIsListedAsForeignAndLeftAlone() throws Exception {
    String gid = "by-hand-" + bank.node;
    try (Connection c = bank.postgres.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("BEGIN");
      s.execute("UPDATE accounts SET balance = balance WHERE id = 'bob'");
      s.execute("PREPARE TRANSACTION '" + gid + "'");
    }
    try (Connection c = bank.mariadb.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("XA START '" + gid + "'");
      s.execute("UPDATE ledger SET balance = balance WHERE id = 'bob'");
      s.execute("XA END '" + gid + "'");
      s.execute("XA PREPARE '" + gid + "'");
    }
    try {
      try (XaOperations ops = bank.operations()) {
        List<PreparedBranch> foreign =
            ops.status().branches().stream().filter(b -> b.xid().contains(gid)).toList();
        assertThat(foreign).hasSize(2).allMatch(PreparedBranch::foreign);
        assertThat(foreign).extracting(PreparedBranch::xid).contains(gid, "1:" + gid + ":");
        assertThatThrownBy(() -> GlobalTransactionId.parse(gid))
            .hasMessageContaining("not a Tandem transaction id");
      }
      try (XaCoordinator xa =
          bank.coordinator(bank.settings().presumeAbortAfter(Duration.ofMillis(1)).build())
              .build()) {
        RecoveryReport report = xa.start();
        assertThat(report.foreign()).isGreaterThanOrEqualTo(2);
        assertThat(report.presumedAborted() + report.rolledBack() + report.committed()).isZero();
      }
      try (XaOperations ops = bank.operations()) {
        assertThat(ops.status().branches().stream().filter(b -> b.xid().contains(gid)))
            .as("recovery left both alone")
            .hasSize(2);
      }
    } finally {
      try (Connection c = bank.postgres.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("ROLLBACK PREPARED '" + gid + "'");
      }
      try (Connection c = bank.mariadb.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("XA ROLLBACK '" + gid + "'");
      } catch (SQLException e) {
        // MariaDB rolls back a branch that changed no row and answers XA_RBROLLBACK (1402)
        assertThat(e.getErrorCode()).isEqualTo(1402);
      }
    }
  }

  private static PreparedBranch branch(XaStatus status, GlobalTransactionId id, String p) {
    return status.branches().stream()
        .filter(b -> b.participant().equals(p) && b.global().equals(java.util.Optional.of(id)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no branch of " + id + " on " + p + ": " + status));
  }

  private CompletableFuture<Integer> update(javax.sql.DataSource ds, String table) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (Connection c = ds.getConnection();
              Statement s = c.createStatement()) {
            return s.executeUpdate("UPDATE " + table + " SET balance = balance WHERE id = 'alice'");
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        },
        blocked);
  }
}
