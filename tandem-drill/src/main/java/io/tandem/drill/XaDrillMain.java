package io.tandem.drill;

import io.tandem.core.ConfiguredFaults;
import io.tandem.testkit.JvmProcess;
import io.tandem.xa.XaCoordinator;
import io.tandem.xa.XaSettings;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * The coordinator process of the {@code coordinator-crash} drill: {@code XaDrillMain PG_URL
 * MARIADB_URL NODE TRANSFERS PRESUME_ABORT_MS}. It starts a coordinator (recovering what an earlier
 * process of its node left), prints {@value #READY}, then runs transfers one after another — each a
 * debit and a log row on PostgreSQL, a credit and a log row on MariaDB — printing {@code BEGIN id}
 * before and {@code COMMITTED id} after each. The fault points of {@code -Dtandem.faults} kill it.
 */
public final class XaDrillMain {
  static final String READY = "XA-DRILL-READY";
  static final String BEGIN = "BEGIN ";
  static final String COMMITTED = "COMMITTED ";

  private XaDrillMain() {}

  public static void main(String[] args) throws SQLException {
    PGXADataSource accounts = new PGXADataSource();
    accounts.setUrl(JvmProcess.argument(args[0]));
    PGSimpleDataSource log = new PGSimpleDataSource();
    log.setURL(JvmProcess.argument(args[0]));
    int transfers = Integer.parseInt(args[3]);
    XaSettings settings =
        XaSettings.builder(args[2])
            .presumeAbortAfter(Duration.ofMillis(Long.parseLong(args[4])))
            .recoveryInterval(Duration.ofSeconds(1))
            .build();
    try (XaCoordinator xa =
        XaCoordinator.builder()
            .settings(settings)
            .decisionLog(log)
            .participant("accounts", accounts)
            .participant("ledger", new MariaDbDataSource(JvmProcess.argument(args[1])))
            .faults(ConfiguredFaults.fromSystemProperty())
            .build()) {
      System.out.println(READY + " " + xa.start());
      System.out.flush();
      for (int i = 0; i < transfers; i++) {
        String id = UUID.randomUUID().toString();
        System.out.println(BEGIN + id);
        System.out.flush();
        xa.inTransaction(
            tx -> {
              run(tx.connection("accounts"), XaDrill.DEBIT, id);
              run(tx.connection("accounts"), XaDrill.LOG, id);
              run(tx.connection("ledger"), XaDrill.CREDIT, id);
              run(tx.connection("ledger"), XaDrill.LOG, id);
              return null;
            });
        System.out.println(COMMITTED + id);
        System.out.flush();
      }
      System.out.println("XA-DRILL-DONE");
    }
  }

  private static void run(java.sql.Connection c, String sql, String id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, id);
      ps.executeUpdate();
    }
  }
}
