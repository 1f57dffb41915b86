package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import io.tandem.xa.XaOperations;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.xa.PGXADataSource;

/**
 * The dashboard's CDC and two-phase-commit panels on the machine's PostgreSQL (wal_level=logical
 * and max_prepared_transactions > 0, as .ci/run configures it): a replication slot and a prepared
 * transaction show up in {@code /api/overview} as {@code tandem cdc status} and {@code tandem xa
 * status} would show them; without panels the overview has neither key.
 */
class DashboardPanelsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theOverviewShowsTheSlotAndTheInDoubtBranch() throws Exception {
    String slot = "dash_" + UUID.randomUUID().toString().substring(0, 8);
    String gid = "foreign-dash-" + UUID.randomUUID();
    try (IsolatedDatabase db = TestInfrastructure.postgres().createDatabase("dash_panels");
        IsolatedDatabase participant =
            TestInfrastructure.postgres().createDatabase("dash_participant")) {
      Migrations.migrate(db.dataSource());
      execute(db, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      try (Connection c = participant.dataSource().getConnection();
          Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        s.execute("CREATE TABLE t (id int)");
        s.execute("INSERT INTO t VALUES (1)");
        s.execute("PREPARE TRANSACTION '" + gid + "'");
      }
      PGXADataSource xaSource = new PGXADataSource();
      xaSource.setUrl(participant.jdbcUrl());
      try (XaOperations xa =
              XaOperations.builder()
                  .decisionLog(db.dataSource())
                  .participant("accounts", xaSource)
                  .build();
          DashboardServer server =
              new DashboardServer(
                  HttpEndpoint.of("127.0.0.1", 0, false, null, Map.of()),
                  "token",
                  db.dataSource(),
                  List.of(),
                  Duration.ofSeconds(5),
                  List.of(new CdcPanel(db.dataSource(), slot), new InDoubtPanel(xa)))) {
        JsonNode o = overview(server);

        JsonNode cdc = o.path("cdc");
        assertThat(cdc.path("slot").asText()).isEqualTo(slot);
        assertThat(cdc.path("exists").asBoolean()).isTrue();
        assertThat(cdc.path("active").asBoolean()).isFalse();
        assertThat(cdc.path("lagBytes").asLong()).isGreaterThanOrEqualTo(0);

        JsonNode branches = o.path("inDoubt").path("branches");
        assertThat(branches.isArray()).isTrue();
        assertThat(branches)
            .anySatisfy(
                b -> {
                  assertThat(b.path("xid").asText()).contains(gid);
                  assertThat(b.path("participant").asText()).isEqualTo("accounts");
                  assertThat(b.path("foreign").asBoolean()).isTrue();
                });
      } finally {
        execute(participant, "ROLLBACK PREPARED '" + gid + "'");
        execute(db, "SELECT pg_drop_replication_slot('" + slot + "')");
      }
    }
  }

  @Test
  void withoutPanelsTheOverviewHasNeitherKey() throws Exception {
    try (IsolatedDatabase db = TestInfrastructure.postgres().createDatabase("dash_plain")) {
      Migrations.migrate(db.dataSource());
      try (DashboardServer server =
          new DashboardServer(
              HttpEndpoint.of("127.0.0.1", 0, false, null, Map.of()),
              "token",
              db.dataSource(),
              List.of(),
              Duration.ofSeconds(5))) {
        JsonNode o = overview(server);
        assertThat(o.has("pending")).isTrue();
        assertThat(o.has("cdc")).isFalse();
        assertThat(o.has("inDoubt")).isFalse();
      }
    }
  }

  private static JsonNode overview(DashboardServer server) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/api/overview"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static void execute(IsolatedDatabase db, String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
