package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Event;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.MariaDbBinlogFixture;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem relay --mode cdc} and {@code tandem cdc status} on MariaDB, through the CLI: the
 * relay as its own process on a binlog MariaDB ({@link MariaDbBinlogFixture}), the status read from
 * the stored binlog position against the server's; the machine's MariaDB (binlog off) for the
 * misconfiguration messages. Skipped without mariadbd unless {@code TANDEM_REQUIRE_TOOLS=1}.
 */
@Tag("slow")
class CdcMariaDbCommandTest {
  @RegisterExtension static final MariaDbBinlogFixture BINLOG = new MariaDbBinlogFixture();

  @TempDir Path dir;
  private IsolatedDatabase db;
  private JvmProcess relay;

  @AfterEach
  void cleanUp() throws InterruptedException {
    if (relay != null) {
      relay.kill();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void relayModeCdcPublishesAndStatusShowsTheBinlogPositionAndLag() throws Exception {
    db = BINLOG.server().createDatabase("cli_cdc_maria");
    Migrations.migrate(db.dataSource());
    String prefix = "cli-cdc-maria-" + System.nanoTime() + ".";
    relay =
        JvmProcess.start(
            dir,
            "relay",
            List.of(),
            TandemCommand.class.getName(),
            JvmProcess.arguments()
                .environment("TANDEM_JDBC_URL", db.jdbcUrl())
                .add(
                    "relay",
                    "--mode",
                    "cdc",
                    "--slot",
                    "cli_maria",
                    "--cdc-history-dir",
                    dir.resolve("history").toString(),
                    "--cdc-heartbeat",
                    "500ms",
                    "--kafka-bootstrap",
                    TestInfrastructure.kafka().bootstrapServers(),
                    "--destination-prefix",
                    prefix,
                    "--relay-id",
                    "cli-cdc-maria",
                    "--http-port",
                    "-1"));
    relay.awaitOutput("publishing via", Duration.ofSeconds(120));
    assertThat(relay.output()).contains("(cdc, binlog position cli_maria)");
    List<Event> events = TestEvents.events("order", 3, 30);
    Outbox outbox = Outbox.create();
    for (Event e : events) {
      Transactions.inTransaction(
          db.dataSource(),
          c -> {
            outbox.append(c, e);
            return null;
          });
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                count("SELECT count(*) FROM tandem_outbox WHERE published_by = 'cli-cdc-maria'")
                    == events.size());
    // the position is stored at the next offset flush (1 s) after the last acknowledgement
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Cli table =
                  Cli.run("cdc", "status", "--jdbc-url", db.jdbcUrl(), "--slot", "cli_maria");
              assertThat(table.status()).as(table.out() + table.err()).isZero();
              assertThat(table.out())
                  .contains("database               mariadb")
                  .containsPattern("streaming +yes \\(binlog reader thread \\d+\\)")
                  .containsPattern("binlog lag +\\d+ bytes")
                  .containsPattern("stored position +\\S+-bin\\.\\d+:\\d+")
                  .containsPattern("server position +\\S+-bin\\.\\d+:\\d+")
                  .contains("relay                  cli-cdc-maria")
                  .contains("status                 ok");
            });
    // last_published_at is the relay's beat's record of its last publish: wait for that beat
    JsonNode status =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    new ObjectMapper()
                        .readTree(
                            Cli.run(
                                    "cdc",
                                    "status",
                                    "--jdbc-url",
                                    db.jdbcUrl(),
                                    "--slot",
                                    "cli_maria",
                                    "--json")
                                .out()),
                node -> !node.get("last_published_at").isNull());
    assertThat(status.get("database").asText()).isEqualTo("mariadb");
    assertThat(status.get("slot_exists").asBoolean()).isTrue();
    assertThat(status.get("streaming").asBoolean()).isTrue();
    assertThat(status.get("slot_lag_bytes").asLong()).isBetween(0L, 1024L * 1024);
    assertThat(status.get("confirmed_flush_lsn").asText()).matches(".+-bin\\.\\d+:\\d+");
    assertThat(status.get("last_published_at").isNull()).isFalse();
    assertThat(status.get("pending").asLong()).isZero();

    relay.close(); // SIGTERM: the relay stores its position and stops
    // 143: the JVM's status after SIGTERM, once the shutdown hook closed the relay
    assertThat(relay.awaitExit(Duration.ofSeconds(30))).isIn(0, 143);
    relay = null;
    // more binlog after the stored position: the lag grows while nobody reads
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE cli_other_writes (id BIGINT, filler LONGTEXT)");
      s.execute("INSERT INTO cli_other_writes VALUES (1, REPEAT('x', 100000))");
    }
    Cli stopped = Cli.run("cdc", "status", "--jdbc-url", db.jdbcUrl(), "--slot", "cli_maria");
    assertThat(stopped.status()).as(stopped.out() + stopped.err()).isEqualTo(1);
    assertThat(stopped.out())
        .contains("streaming              NO")
        .containsPattern("binlog lag +\\d{6,} bytes")
        .contains("PROBLEM: no CDC relay streams the binlog for 'cli_maria'");
    Cli lagging =
        Cli.run(
            "cdc",
            "status",
            "--jdbc-url",
            db.jdbcUrl(),
            "--slot",
            "cli_maria",
            "--lag-alert-bytes",
            "1000",
            "--json");
    assertThat(new ObjectMapper().readTree(lagging.out()).get("lagging").asBoolean()).isTrue();
  }

  @Test
  void statusWithoutAStoredPositionSaysNoRelayStarted() throws Exception {
    db = BINLOG.server().createDatabase("cli_cdc_maria_none");
    Migrations.migrate(db.dataSource());
    Cli table = Cli.run("cdc", "status", "--jdbc-url", db.jdbcUrl(), "--slot", "nobody_here");
    assertThat(table.status()).isEqualTo(1);
    assertThat(table.out())
        .contains("streaming              no position stored")
        .contains("PROBLEM: no binlog position stored for 'nobody_here'");
  }

  @Test
  void onAServerWithoutBinlogBothCommandsSayWhatToChange() throws Exception {
    Assumptions.assumeTrue(
        count(TestInfrastructure.mariadb().dataSource(), "SELECT @@log_bin") == 0,
        "the shared MariaDB has its binlog on");
    IsolatedDatabase plain = TestInfrastructure.mariadb().createDatabase("cli_cdc_nobinlog");
    try {
      Migrations.migrate(plain.dataSource());
      Cli status = Cli.run("cdc", "status", "--jdbc-url", plain.jdbcUrl());
      assertThat(status.status()).isEqualTo(2);
      assertThat(status.err()).contains("binary log is off").contains("restart MariaDB");
      Cli start =
          Cli.run(
              "relay",
              "--mode",
              "cdc",
              "--jdbc-url",
              plain.jdbcUrl(),
              "--kafka-bootstrap",
              TestInfrastructure.kafka().bootstrapServers(),
              "--http-port",
              "-1");
      assertThat(start.status()).isEqualTo(2);
      assertThat(start.err()).contains("binary log is off (log_bin = OFF)").contains("restart");
      Cli publication =
          Cli.run(
              "relay",
              "--mode",
              "cdc",
              "--jdbc-url",
              plain.jdbcUrl(),
              "--publication",
              "p",
              "--kafka-bootstrap",
              TestInfrastructure.kafka().bootstrapServers());
      assertThat(publication.status()).isEqualTo(2);
      assertThat(publication.err()).contains("--publication is a PostgreSQL setting");
    } finally {
      plain.close();
    }
  }

  private long count(String sql) {
    return count(db.dataSource(), sql);
  }

  private static long count(javax.sql.DataSource ds, String sql) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
