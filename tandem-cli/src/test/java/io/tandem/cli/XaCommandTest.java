package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.FaultInjector;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.XaCoordinator;
import io.tandem.xa.XaSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/** {@code tandem xa status|resolve|recover} against the machine's PostgreSQL and MariaDB. */
@RequiresMariaDb
class XaCommandTest {
  static IsolatedDatabase pg;
  static IsolatedDatabase maria;
  static final String NODE = "cli-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void databases() throws Exception {
    maria = TestInfrastructure.mariadb().createDatabase("xa_cli");
    pg = TestInfrastructure.postgres().createDatabase("xa_cli");
    Migrations.migrate(pg.dataSource());
    try (Connection c = pg.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE accounts (id text PRIMARY KEY, balance bigint NOT NULL)");
      s.execute("INSERT INTO accounts VALUES ('alice', 100)");
    }
    try (Connection c = maria.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE ledger (id VARCHAR(36) PRIMARY KEY, balance BIGINT NOT NULL)");
      s.execute("INSERT INTO ledger VALUES ('alice', 0)");
    }
  }

  @AfterEach
  void finishLeftovers() {
    Cli.run(args("xa", "recover", "--node", NODE, "--presume-abort-after", "1ms"));
    XaCommand.terminal = q -> null;
  }

  @AfterAll
  static void drop() {
    if (pg != null) {
      pg.close();
    }
    if (maria != null) {
      maria.close();
    }
  }

  private static String[] args(String... head) {
    List<String> a = new ArrayList<>(List.of(head));
    a.addAll(
        List.of(
            "--jdbc-url",
            pg.jdbcUrl(),
            "--participant",
            "accounts=" + pg.jdbcUrl(),
            "--participant",
            "ledger=" + maria.jdbcUrl()));
    return a.toArray(String[]::new);
  }

  /** A transfer whose coordinator dies after prepare: both branches stay in doubt. */
  private static GlobalTransactionId inDoubt() throws Exception {
    PGXADataSource accounts = new PGXADataSource();
    accounts.setUrl(pg.jdbcUrl());
    GlobalTransactionId[] id = new GlobalTransactionId[1];
    try (XaCoordinator xa =
        XaCoordinator.builder()
            .settings(XaSettings.builder(NODE).presumeAbortAfter(Duration.ofHours(1)).build())
            .decisionLog(pg.dataSource())
            .participant("accounts", accounts)
            .participant("ledger", new MariaDbDataSource(maria.jdbcUrl()))
            .faults(
                p -> {
                  if (p.equals(FaultInjector.XA_AFTER_PREPARE)) {
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
                        try (Statement s = tx.connection("accounts").createStatement()) {
                          s.executeUpdate("UPDATE accounts SET balance = balance - 5");
                        }
                        try (Statement s = tx.connection("ledger").createStatement()) {
                          s.executeUpdate("UPDATE ledger SET balance = balance + 5");
                        }
                        return null;
                      }))
          .isInstanceOf(FaultInjector.SimulatedCrash.class);
    }
    return id[0];
  }

  @Test
  void statusListsTheInDoubtBranchesWithTheirLocksAsATableAndAsJson() throws Exception {
    GlobalTransactionId id = inDoubt();

    Cli table = Cli.run(args("xa", "status"));
    assertThat(table.status()).as(table.err()).isZero();
    assertThat(table.out())
        .contains(id + ":accounts")
        .contains(id + ":ledger")
        .contains(NODE)
        .contains("RowExclusiveLock on accounts")
        .contains("none");

    Cli json = Cli.run(args("xa", "status", "--json"));
    JsonNode root = new ObjectMapper().readTree(json.out());
    List<JsonNode> mine = new ArrayList<>();
    root.get("branches")
        .forEach(
            b -> {
              if (id.toString().equals(b.path("transaction").asText())) {
                mine.add(b);
              }
            });
    assertThat(mine).hasSize(2);
    assertThat(mine).allMatch(b -> b.get("decision").isNull() && !b.get("foreign").asBoolean());
    assertThat(root.get("oldest_in_doubt_ms").isNumber()).isTrue();
  }

  @Test
  void resolveAsksOnATerminalRefusesWithoutOneAndRecordsWhatItDid() throws Exception {
    GlobalTransactionId id = inDoubt();

    Cli noTerminal = Cli.run(args("xa", "resolve", id.toString(), "--rollback"));
    assertThat(noTerminal.status()).isEqualTo(2);
    assertThat(noTerminal.err()).contains("not on a terminal").contains("--yes");

    XaCommand.terminal = q -> "n";
    Cli declined = Cli.run(args("xa", "resolve", id.toString(), "--rollback"));
    assertThat(declined.status()).isEqualTo(1);
    assertThat(declined.out()).contains("nothing done");
    assertThat(Cli.run(args("xa", "status")).out()).contains(id + ":accounts");

    List<String> asked = new ArrayList<>();
    XaCommand.terminal =
        q -> {
          asked.add(q);
          return "y";
        };
    Cli done =
        Cli.run(
            args(
                "xa",
                "resolve",
                id.toString(),
                "--rollback",
                "--operator",
                "ops-1",
                "--reason",
                "coordinator gone"));
    assertThat(done.status()).as(done.err()).isZero();
    assertThat(asked)
        .singleElement()
        .asString()
        .contains("rollback every prepared branch of " + id);
    assertThat(done.out())
        .contains("rolled back " + id)
        .contains("ROLLED_BACK")
        .contains("resolved by ops-1");
    assertThat(Cli.run(args("xa", "status")).out()).doesNotContain(id.toString());
    try (Connection c = pg.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT operator, reason FROM tandem_xa_resolution WHERE gtrid = '" + id + "'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("ops-1");
      assertThat(rs.getString(2)).isEqualTo("coordinator gone");
    }
  }

  @Test
  void resolveWithYesCommitsAndRefusesAForeignXid() throws Exception {
    GlobalTransactionId id = inDoubt();

    Cli done = Cli.run(args("xa", "resolve", id.toString(), "--commit", "--yes"));
    assertThat(done.status()).as(done.err()).isZero();
    assertThat(done.out()).contains("committed " + id).contains("COMMITTED");

    Cli foreign = Cli.run(args("xa", "resolve", "by-hand-1", "--commit", "--yes"));
    assertThat(foreign.status()).isEqualTo(2);
    assertThat(foreign.err()).contains("not a Tandem transaction id");

    Cli nothing =
        Cli.run(
            args("xa", "resolve", NODE + "/" + io.tandem.core.EventId.next(), "--commit", "--yes"));
    assertThat(nothing.status()).isEqualTo(2);
    assertThat(nothing.err()).contains("no participant given has a prepared branch");
  }

  @Test
  void recoverForAGoneNodeRollsBackItsUndecidedBranches() throws Exception {
    GlobalTransactionId id = inDoubt();
    Cli r = Cli.run(args("xa", "recover", "--node", NODE, "--presume-abort-after", "1ms"));
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("presumed aborted 2");
    assertThat(Cli.run(args("xa", "status")).out()).doesNotContain(id.toString());
  }

  @Test
  void badInputIsOneLineNamingTheOption() {
    Cli noParticipant = Cli.run("xa", "status", "--jdbc-url", pg.jdbcUrl());
    assertThat(noParticipant.status()).isEqualTo(2);
    assertThat(noParticipant.err()).contains("--participant");
    Cli badUrl =
        Cli.run("xa", "status", "--jdbc-url", pg.jdbcUrl(), "--participant", "x=jdbc:h2:mem");
    assertThat(badUrl.status()).isEqualTo(2);
    assertThat(badUrl.err()).contains("--participant x:").contains("not a PostgreSQL, MariaDB");
  }
}
