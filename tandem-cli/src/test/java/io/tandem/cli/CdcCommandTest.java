package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code tandem migrate --cdc-publication} and {@code tandem cdc status} without a relay. */
class CdcCommandTest {
  private IsolatedDatabase db;

  @BeforeEach
  void database() {
    db = TestInfrastructure.postgres().createDatabase("cli_cdc");
  }

  @AfterEach
  void drop() {
    db.close();
  }

  @Test
  void migrateCreatesThePublicationOnce() throws Exception {
    Cli first = Cli.run("migrate", "--jdbc-url", db.jdbcUrl(), "--cdc-publication", "shop_cdc");
    assertThat(first.status()).as(first.err()).isZero();
    Cli again = Cli.run("migrate", "--jdbc-url", db.jdbcUrl(), "--cdc-publication", "shop_cdc");
    assertThat(again.status()).as(again.err()).isZero();
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_publication_tables"
                    + " WHERE pubname = 'shop_cdc'")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("tandem_cdc_heartbeat,tandem_outbox");
    }
  }

  @Test
  void statusNamesTheMissingSlotAndExitsWithOne() throws Exception {
    Cli.run("migrate", "--jdbc-url", db.jdbcUrl());
    Cli table = Cli.run("cdc", "status", "--jdbc-url", db.jdbcUrl(), "--slot", "nobody_here");
    assertThat(table.status()).isEqualTo(1);
    assertThat(table.out())
        .contains("streaming              no slot")
        .contains("PROBLEM: no replication slot 'nobody_here'");

    Cli json =
        Cli.run("cdc", "status", "--jdbc-url", db.jdbcUrl(), "--slot", "nobody_here", "--json");
    JsonNode status = new ObjectMapper().readTree(json.out());
    assertThat(status.get("slot_exists").asBoolean()).isFalse();
    assertThat(status.get("pending").asLong()).isZero();
    assertThat(status.get("problem").asText()).contains("no CDC relay has started on it yet");
  }

  @Test
  void aBadSlotNameIsRefusedWithTheRule() {
    Cli.run("migrate", "--jdbc-url", db.jdbcUrl());
    Cli bad = Cli.run("cdc", "status", "--jdbc-url", db.jdbcUrl(), "--slot", "Bad-Name");
    assertThat(bad.status()).isNotZero();
    assertThat(bad.err()).contains("'Bad-Name'").contains("a-z, 0-9 and _");
  }
}
