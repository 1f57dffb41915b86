package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PostgresServerTest {

  private static final String LOCAL_SERVER = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static PostgresServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresServer.embedded().start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  void embeddedServerAnswersQueriesWithFastDefaults() throws SQLException {
    assertThat(server.isEmbedded()).isTrue();
    assertThat(server.jdbcUrl())
        .startsWith("jdbc:postgresql://127.0.0.1:")
        .endsWith("/postgres?user=postgres");
    assertThat(query(server.dataSource(), "SELECT 1")).isEqualTo("1");
    assertThat(query(server.dataSource(), "SHOW fsync")).isEqualTo("off");
    assertThat(query(server.dataSource(), "SHOW synchronous_commit")).isEqualTo("off");
  }

  @Test
  void crashedServerStartsAgainWithItsCommittedRows() throws SQLException {
    try (PostgresServer durable = PostgresServer.embedded().durable(true).start()) {
      execute(durable.dataSource(), "CREATE TABLE survivor (id int)");
      execute(durable.dataSource(), "INSERT INTO survivor VALUES (7)");

      durable.crash();
      assertThatThrownBy(() -> query(durable.dataSource(), "SELECT 1"))
          .isInstanceOf(SQLException.class);

      durable.startAgain();
      assertThat(query(durable.dataSource(), "SELECT id FROM survivor")).isEqualTo("7");
    }
  }

  @Test
  void externalServerCannotBeCrashed() {
    Assumptions.assumeTrue(listening("127.0.0.1", 5432), "no PostgreSQL on 127.0.0.1:5432");
    PostgresServer external = PostgresServer.external(LOCAL_SERVER);
    assertThatThrownBy(external::crash)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("only stops servers it started");
  }

  @Test
  void isolatedDatabasesDoNotShareTablesAndAreDroppedOnClose() throws SQLException {
    IsolatedDatabase first = server.createDatabase("Isolation_Test");
    try (IsolatedDatabase second = server.createDatabase("isolation_test")) {
      assertThat(first.name()).matches("isolation_test_[a-z0-9]{12}").isNotEqualTo(second.name());
      assertThat(first.jdbcUrl()).contains("/" + first.name() + "?user=postgres");
      execute(first.dataSource(), "CREATE TABLE marker (id int)");
      execute(first.dataSource(), "INSERT INTO marker VALUES (42)");

      assertThat(query(first.dataSource(), "SELECT current_database()")).isEqualTo(first.name());
      assertThat(query(first.dataSource(), "SELECT id FROM marker")).isEqualTo("42");
      assertThat(query(second.dataSource(), "SELECT to_regclass('marker') IS NULL")).isEqualTo("t");

      // A session still open must not keep the database from being dropped.
      try (Connection open = first.dataSource().getConnection()) {
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
    assertThatThrownBy(() -> server.createDatabase("1; DROP DATABASE postgres"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'1; DROP DATABASE postgres'");
  }

  @Test
  void durableServerSyncsCommitsAndTakesServerSettings() throws SQLException {
    DataSource dataSource;
    try (PostgresServer durable =
        PostgresServer.embedded()
            .durable(true)
            .serverConfig("max_prepared_transactions", "7")
            .start()) {
      dataSource = durable.dataSource();
      assertThat(query(dataSource, "SHOW fsync")).isEqualTo("on");
      assertThat(query(dataSource, "SHOW synchronous_commit")).isEqualTo("on");
      assertThat(query(dataSource, "SHOW full_page_writes")).isEqualTo("on");
      assertThat(query(dataSource, "SHOW max_prepared_transactions")).isEqualTo("7");
    }
    assertThatThrownBy(dataSource::getConnection).isInstanceOf(SQLException.class);
  }

  @Test
  void externalServerGivesIsolatedDatabasesAndIsLeftRunning() throws SQLException {
    Assumptions.assumeTrue(listening("127.0.0.1", 5432), "no PostgreSQL listens on 127.0.0.1:5432");
    String name;
    IsolatedDatabase closedAfterServer;
    try (PostgresServer external = PostgresServer.external(LOCAL_SERVER)) {
      closedAfterServer = external.createDatabase("external_test");
      assertThat(external.isEmbedded()).isFalse();
      assertThat(query(external.dataSource(), "SELECT 1")).isEqualTo("1");
      try (IsolatedDatabase database = external.createDatabase("external_test")) {
        name = database.name();
        assertThat(database.jdbcUrl())
            .isEqualTo("jdbc:postgresql://127.0.0.1:5432/" + name + "?user=postgres");
        execute(database.dataSource(), "CREATE TABLE marker (id int)");
        assertThat(query(external.dataSource(), existsQuery(name))).isEqualTo("t");
      }
      assertThat(query(external.dataSource(), existsQuery(name))).isEqualTo("f");
    }
    DataSource stillRunning = PostgresServer.dataSourceFor(LOCAL_SERVER);
    assertThat(query(stillRunning, "SELECT 1")).isEqualTo("1");
    assertThat(query(stillRunning, existsQuery(closedAfterServer.name()))).isEqualTo("t");
    closedAfterServer.close();
    assertThat(query(stillRunning, existsQuery(closedAfterServer.name()))).isEqualTo("f");
  }

  @Test
  void externalServerThatDoesNotAnswerFailsClearly() {
    assertThatThrownBy(
            () ->
                PostgresServer.external(
                    "jdbc:postgresql://127.0.0.1:1/test?user=x&password=secret"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "Cannot connect to the external PostgreSQL at jdbc:postgresql://127.0.0.1:1/test")
        .hasMessageContaining("password=***")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> PostgresServer.external("jdbc:mysql://127.0.0.1/test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:mysql://127.0.0.1/test");
  }

  private static boolean databaseExists(String name) throws SQLException {
    return query(server.dataSource(), existsQuery(name)).equals("t");
  }

  private static String existsQuery(String name) {
    return "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = '" + name + "')";
  }

  private static boolean listening(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static String query(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      assertThat(result.next()).as("a row from %s", sql).isTrue();
      return result.getString(1);
    }
  }

  static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
