package io.tandem.drill;

import io.tandem.core.FaultInjector;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * {@code coordinator-crash}: a two-phase coordinator process (accounts on PostgreSQL, a ledger on
 * MariaDB) is killed by SIGKILL three times — after prepare and before its decision, after the
 * decision and before phase 2, and between its two phase-2 commits — and a new process of the same
 * node takes over each time. The checker reads both databases: every transfer the process saw
 * committed is on both sides; the transfer in flight at each kill is on neither side (after
 * prepare) or on both (after the decision); no transfer is on one side only; money is conserved;
 * nothing is left in doubt. Without protection no new coordinator recovers: branches stay in doubt.
 */
final class XaDrill {
  static final String DEBIT = "UPDATE accounts SET balance = balance - 1 WHERE id = 1 AND ? <> ''";
  static final String CREDIT = "UPDATE ledger SET balance = balance + 1 WHERE id = 1 AND ? <> ''";
  static final String LOG = "INSERT INTO transfer_log (id) VALUES (?)";
  private static final int KILL_AT = 10;

  private final DrillEnvironment env;
  private final DrillSettings settings;

  XaDrill(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  /** One kill: where, and what must have become of the transfer in flight. */
  private record Round(String point, boolean inFlightCommits) {}

  private static final List<Round> ROUNDS =
      List.of(
          new Round(FaultInjector.XA_AFTER_PREPARE, false),
          new Round(FaultInjector.XA_AFTER_DECISION, true),
          new Round(FaultInjector.XA_MID_PHASE_TWO, true));

  DrillResult run(String name) throws Exception {
    MariaDbServer maria;
    try {
      maria =
          MariaDbServer.external(
              System.getenv()
                  .getOrDefault(
                      TestInfrastructure.MARIADB_URL_VARIABLE,
                      TestInfrastructure.DEFAULT_MARIADB_URL));
    } catch (IllegalStateException e) {
      return DrillResult.notAvailable(
          name, "no MariaDB answers (set TANDEM_MARIADB_URL): " + e.getMessage());
    }
    // The embedded PostgreSQL of the drills runs with max_prepared_transactions = 0.
    PostgresServer own =
        env.postgres().isEmbedded()
            ? PostgresServer.embedded()
                .durable(true)
                .serverConfig("max_prepared_transactions", "20")
                .start()
            : null;
    PostgresServer pg = own != null ? own : env.postgres();
    String node = "drill-" + UUID.randomUUID().toString().substring(0, 8);
    try (IsolatedDatabase accounts = pg.createDatabase("drill_xa");
        IsolatedDatabase ledger = maria.createDatabase("drill_xa")) {
      XaBooks.prepare(accounts.dataSource(), ledger.dataSource());
      Path dir = settings.workDir().resolve(name + "-" + node);
      List<String> detail = new ArrayList<>();
      detail.add(
          settings.protection()
              ? "protection on: a new coordinator process of the same node recovers"
              : "protection OFF: no coordinator recovers the dead one's branches");
      List<String> failures = new ArrayList<>();
      Set<String> acknowledged = new HashSet<>();
      long recoveryMs = 0;
      int transfers = Math.max(20, settings.events() / 10);
      for (Round round : ROUNDS) {
        JvmProcess doomed =
            XaCoordinators.process(
                dir,
                accounts,
                ledger,
                node,
                "coordinator-" + round.point(),
                transfers,
                Faults.point(round.point(), "kill", KILL_AT));
        boolean fired =
            Faults.diedAtItsFault(
                doomed, "coordinator killed (SIGKILL) at " + round.point(), detail);
        if (!fired) {
          failures.add("the fault at " + round.point() + " did not happen as planned");
        }
        acknowledged.addAll(XaCoordinators.lines(doomed.output(), XaDrillMain.COMMITTED));
        String inFlight = XaCoordinators.lastBegun(doomed.output());
        long killedAt = System.nanoTime();
        long inDoubt = XaBooks.inDoubt(accounts, ledger, node);
        detail.add(round.point() + ": " + inDoubt + " branch(es) in doubt after the kill");
        if (!settings.protection()) {
          break;
        }
        JvmProcess next =
            XaCoordinators.process(
                dir, accounts, ledger, node, "coordinator-after-" + round.point(), 5, null);
        boolean settled =
            Scenario.await(() -> XaBooks.inDoubt(accounts, ledger, node) == 0, settings.timeout());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        recoveryMs = Math.max(recoveryMs, settled ? ms : -1);
        if (next.awaitExit(Duration.ofSeconds(120)) != 0) {
          failures.add("the recovering coordinator did not finish: " + next.log());
        }
        acknowledged.addAll(XaCoordinators.lines(next.output(), XaDrillMain.COMMITTED));
        if (!settled) {
          failures.add("branches still in doubt " + settings.timeout() + " after " + round.point());
        }
        if (inFlight != null) {
          boolean onPg = XaBooks.logged(accounts.dataSource(), inFlight);
          boolean onMaria = XaBooks.logged(ledger.dataSource(), inFlight);
          detail.add(
              round.point()
                  + ": the transfer in flight is "
                  + (onPg && onMaria ? "committed" : !onPg && !onMaria ? "rolled back" : "HALF")
                  + " after "
                  + ms
                  + " ms");
          if (onPg != round.inFlightCommits() || onMaria != round.inFlightCommits()) {
            failures.add(
                "the transfer in flight at "
                    + round.point()
                    + " should be "
                    + (round.inFlightCommits() ? "committed" : "rolled back"));
          }
        }
      }
      Set<String> pgLog = XaBooks.log(accounts.dataSource());
      Set<String> mariaLog = XaBooks.log(ledger.dataSource());
      Set<String> half = new HashSet<>(pgLog);
      half.removeAll(mariaLog);
      Set<String> halfOther = new HashSet<>(mariaLog);
      halfOther.removeAll(pgLog);
      half.addAll(halfOther);
      Set<String> lost = new HashSet<>(acknowledged);
      lost.removeIf(id -> pgLog.contains(id) && mariaLog.contains(id));
      long debited =
          -XaBooks.sum(accounts.dataSource(), "SELECT balance FROM accounts WHERE id = 1");
      long credited = XaBooks.sum(ledger.dataSource(), "SELECT balance FROM ledger WHERE id = 1");
      long leftInDoubt = XaBooks.inDoubt(accounts, ledger, node);
      detail.add(
          "transfers acknowledged "
              + acknowledged.size()
              + ", on PostgreSQL "
              + pgLog.size()
              + ", on MariaDB "
              + mariaLog.size()
              + ", on one side only "
              + half.size()
              + "; debited "
              + debited
              + ", credited "
              + credited
              + "; branches in doubt at the end "
              + leftInDoubt);
      if (!half.isEmpty()) {
        failures.add(half.size() + " transfer(s) committed on one side only");
      }
      if (!lost.isEmpty()) {
        failures.add(lost.size() + " acknowledged transfer(s) missing");
      }
      if (debited != credited) {
        failures.add("money not conserved: debited " + debited + ", credited " + credited);
      }
      if (leftInDoubt > 0) {
        failures.add(leftInDoubt + " branch(es) left in doubt");
      }
      failures.forEach(f -> detail.add("FAIL: " + f));
      if (leftInDoubt > 0) {
        XaBooks.recover(accounts, ledger, node); // so that the databases can be dropped
      }
      Set<String> both = new HashSet<>(pgLog);
      both.retainAll(mariaLog);
      return new DrillResult(
          name,
          failures.isEmpty() ? DrillResult.Verdict.PASS : DrillResult.Verdict.FAIL,
          pgLog.size(),
          acknowledged.size(),
          both.size(),
          0,
          half.size(),
          lost.size() + leftInDoubt,
          0,
          settings.protection() ? recoveryMs : -1,
          detail);
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }
}
