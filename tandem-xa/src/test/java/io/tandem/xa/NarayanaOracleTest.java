package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.jta.common.jtaPropertyManager;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import io.tandem.testkit.RequiresMariaDb;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.XAConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Narayana, the reference transaction manager, as an oracle: the same scenarios run through
 * Narayana and through Tandem's coordinator, from the same balances, end in the same outcome and
 * the same balances on both databases.
 */
@RequiresMariaDb
class NarayanaOracleTest {
  static Bank bank;
  static TransactionManager narayana;

  /** One scenario's work on the two databases; it may throw to fail the transaction. */
  @FunctionalInterface
  interface Work {
    void run(Connection accounts, Connection ledger) throws SQLException;
  }

  /** How a run ended and the balances it left (alice, bob on each side). */
  record End(String outcome, List<Long> balances) {}

  @BeforeAll
  static void setUp() throws Exception {
    bank = new Bank("xa_oracle");
    try (Connection c = bank.postgres.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE transfer_ref (ref text,"
              + " CONSTRAINT transfer_ref_unique UNIQUE (ref) DEFERRABLE INITIALLY DEFERRED)");
    }
    Path store = Files.createTempDirectory("narayana-store-");
    for (String name : new String[] {null, "communicationStore", "stateStore"}) {
      ObjectStoreEnvironmentBean bean =
          name == null
              ? BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class)
              : BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, name);
      bean.setObjectStoreDir(store.toString());
    }
    arjPropertyManager.getCoreEnvironmentBean().setNodeIdentifier("tandem-oracle");
    // MariaDB's resource says isSameRM for any two connections to one server, but cannot join.
    jtaPropertyManager
        .getJTAEnvironmentBean()
        .setXaResourceIsSameRMClassNames(
            List.of("org.mariadb.jdbc.MariaDbPoolConnection$MariaDbXAResource"));
    narayana = com.arjuna.ats.jta.TransactionManager.transactionManager();
  }

  @AfterAll
  static void drop() {
    if (bank != null) {
      bank.close();
    }
  }

  private static final Work TRANSFER =
      (a, l) -> {
        update(a, "UPDATE accounts SET balance = balance - 10 WHERE id = 'alice'");
        update(l, "UPDATE ledger SET balance = balance + 10 WHERE id = 'alice'");
      };

  private static final Map<String, Work> SCENARIOS =
      Map.of(
          "commit",
          TRANSFER,
          "work fails",
          (a, l) -> {
            TRANSFER.run(a, l);
            throw new SQLException("the application gives up");
          },
          "a branch votes no",
          (a, l) -> {
            TRANSFER.run(a, l);
            update(a, "INSERT INTO transfer_ref VALUES ('x'), ('x')");
          },
          "one writer",
          (a, l) -> {
            a.createStatement().executeQuery("SELECT balance FROM accounts").close();
            update(l, "UPDATE ledger SET balance = balance + 1 WHERE id = 'bob'");
          },
          "MariaDB refuses a statement",
          (a, l) -> {
            TRANSFER.run(a, l);
            update(l, "UPDATE ledger SET nonexistent = 1");
          });

  @Test
  void tandemEndsEveryScenarioAsNarayanaDoes() throws Exception {
    for (Map.Entry<String, Work> s : SCENARIOS.entrySet()) {
      End viaNarayana = run(() -> narayana(s.getValue()));
      End viaTandem = run(() -> tandem(s.getValue()));
      assertThat(viaTandem).as(s.getKey()).isEqualTo(viaNarayana);
      assertThat(bank.preparedOfNode()).isZero();
    }
  }

  interface Run {
    String outcome() throws Exception;
  }

  /** Runs one TM's attempt and returns its outcome with the balance changes it made. */
  private static End run(Run attempt) throws Exception {
    List<Long> before = balances();
    String outcome = attempt.outcome();
    List<Long> after = balances();
    List<Long> delta = new ArrayList<>();
    for (int i = 0; i < before.size(); i++) {
      delta.add(after.get(i) - before.get(i));
    }
    return new End(outcome, delta);
  }

  private static List<Long> balances() throws SQLException {
    return List.of(
        bank.account("alice"), bank.account("bob"), bank.ledger("alice"), bank.ledger("bob"));
  }

  private static String narayana(Work work) throws Exception {
    XAConnection a = bank.accountsXa().getXAConnection();
    XAConnection l = bank.ledgerXa().getXAConnection();
    try {
      narayana.begin();
      Transaction tx = narayana.getTransaction();
      tx.enlistResource(a.getXAResource());
      tx.enlistResource(l.getXAResource());
      try {
        work.run(a.getConnection(), l.getConnection());
      } catch (SQLException e) {
        narayana.rollback();
        return "ROLLED_BACK";
      }
      try {
        narayana.commit();
        return "COMMITTED";
      } catch (jakarta.transaction.RollbackException e) {
        return "ROLLED_BACK";
      }
    } finally {
      a.close();
      l.close();
    }
  }

  private static String tandem(Work work) {
    try (XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
      xa.start();
      try {
        xa.inTransaction(
            tx -> {
              work.run(tx.connection("accounts"), tx.connection("ledger"));
              return null;
            });
        return "COMMITTED";
      } catch (SQLException | XaRollbackException e) {
        return "ROLLED_BACK";
      }
    }
  }

  private static void update(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }
}
