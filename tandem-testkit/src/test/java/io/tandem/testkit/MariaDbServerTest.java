package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs against the machine's MariaDB (or TANDEM_MARIADB_URL); skipped when none answers. */
@RequiresMariaDb
class MariaDbServerTest {

  private static MariaDbServer server;

  @BeforeAll
  static void connect() {
    server = TestInfrastructure.mariadb();
  }

  @Test
  void theSharedServerIsExternalAndAnswers() throws SQLException {
    assertThat(TestInfrastructure.mariadb()).isSameAs(server);
    assertThat(server.isEmbedded()).isFalse();
    assertThat(server.jdbcUrl()).startsWith("jdbc:mariadb://");
    assertThat(PostgresServerTest.query(server.dataSource(), "SELECT 1")).isEqualTo("1");
  }

  @Test
  void isolatedDatabasesDoNotShareTablesAndAreDroppedOnClose() throws SQLException {
    IsolatedDatabase first = server.createDatabase("Isolation_Test");
    try (IsolatedDatabase second = server.createDatabase("isolation_test")) {
      assertThat(first.name()).matches("isolation_test_[a-z0-9]{12}").isNotEqualTo(second.name());
      assertThat(first.jdbcUrl()).contains("/" + first.name());
      assertThat(first.server()).isSameAs(server);
      PostgresServerTest.execute(first.dataSource(), "CREATE TABLE marker (id int)");
      PostgresServerTest.execute(first.dataSource(), "INSERT INTO marker VALUES (42)");

      assertThat(PostgresServerTest.query(first.dataSource(), "SELECT DATABASE()"))
          .isEqualTo(first.name());
      assertThat(PostgresServerTest.query(first.dataSource(), "SELECT id FROM marker"))
          .isEqualTo("42");
      assertThat(PostgresServerTest.query(second.dataSource(), tableCount("marker")))
          .isEqualTo("0");

      // A session in the middle of a transaction on one of its tables holds a metadata lock; it
      // must not keep the database from being dropped.
      try (Connection open = first.dataSource().getConnection()) {
        open.setAutoCommit(false);
        try (Statement s = open.createStatement()) {
          s.execute("INSERT INTO marker VALUES (43)");
        }
        first.close();
      }
    }
    assertThat(databaseExists(first.name())).isFalse();
    assertThatThrownBy(() -> first.dataSource().getConnection())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining(first.name());
  }

  @Test
  void invalidPrefixIsRejectedWithTheValue() {
    assertThatThrownBy(() -> server.createDatabase("1; DROP DATABASE test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'1; DROP DATABASE test'");
  }

  @Test
  void anExternalServerThatDoesNotAnswerFailsClearly() {
    assertThatThrownBy(
            () -> MariaDbServer.external("jdbc:mariadb://127.0.0.1:1/test?user=x&password=secret"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "Cannot connect to the external MariaDB at jdbc:mariadb://127.0.0.1:1")
        .hasMessageContaining("password=***")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> MariaDbServer.external("jdbc:postgresql://127.0.0.1/test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:postgresql://127.0.0.1/test")
        .hasMessageContaining("jdbc:mariadb://127.0.0.1:3306/test?user=root");
  }

  private static boolean databaseExists(String name) throws SQLException {
    return !PostgresServerTest.query(
            server.dataSource(),
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '" + name + "'")
        .equals("0");
  }

  private static String tableCount(String table) {
    return "SELECT count(*) FROM information_schema.tables"
        + " WHERE table_schema = DATABASE() AND table_name = '"
        + table
        + "'";
  }
}
