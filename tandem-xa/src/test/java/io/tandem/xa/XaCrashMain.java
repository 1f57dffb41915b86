package io.tandem.xa;

import io.tandem.core.ConfiguredFaults;
import io.tandem.testkit.JvmProcess;
import java.sql.SQLException;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * A coordinator process for the kill tests: {@code XaCrashMain PG_URL MARIADB_URL NODE WHO AMOUNT}
 * runs one transfer with the fault points of {@code -Dtandem.faults}, which kill it with SIGKILL.
 */
public final class XaCrashMain {
  public static final String READY = "XA-COORDINATOR-READY";

  private XaCrashMain() {}

  public static void main(String[] args) throws SQLException {
    PGXADataSource accounts = new PGXADataSource();
    accounts.setUrl(JvmProcess.argument(args[0]));
    PGSimpleDataSource log = new PGSimpleDataSource();
    log.setURL(JvmProcess.argument(args[0]));
    try (XaCoordinator xa =
        XaCoordinator.builder()
            .settings(XaSettings.defaults(args[2]))
            .decisionLog(log)
            .participant("accounts", accounts)
            .participant("ledger", new MariaDbDataSource(JvmProcess.argument(args[1])))
            .faults(ConfiguredFaults.fromSystemProperty())
            .build()) {
      xa.start();
      System.out.println(READY);
      System.out.flush();
      xa.inTransaction(tx -> Bank.transfer(tx, args[3], Long.parseLong(args[4])));
      System.out.println("XA-TRANSFER-COMMITTED");
    }
  }
}
