package io.tandem.testkit;

import io.tandem.testkit.internal.JdbcUrls;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A running MariaDB (or MySQL) server, only connected to: this kit does not start one. Tests take
 * one {@link IsolatedDatabase} per test class from it, as from a {@link PostgresServer}:
 *
 * <pre>{@code
 * MariaDbServer server = MariaDbServer.external("jdbc:mariadb://127.0.0.1:3306/test?user=root");
 * try (IsolatedDatabase database = server.createDatabase("relay_test")) {
 *   DataSource dataSource = database.dataSource();
 *   ...
 * }
 * }</pre>
 *
 * <p>Usually a test takes the shared server of {@link TestInfrastructure#mariadb()}, which skips
 * the test when no MariaDB answers. Thread safety: all methods may be called from any thread.
 */
public final class MariaDbServer extends DatabaseServer {

  private final String jdbcUrl;

  private MariaDbServer(String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
  }

  /**
   * Returns a handle on an already running server after checking that {@code jdbcUrl} connects. The
   * user in the URL needs the privileges to create and drop databases for {@link
   * #createDatabase(String)}, and to see and end other sessions for {@link
   * IsolatedDatabase#close()} to end those still connected.
   *
   * @param jdbcUrl for example {@code jdbc:mariadb://127.0.0.1:3306/test?user=root} (a MySQL server
   *     is reached with a {@code jdbc:mariadb://} URL too)
   * @throws IllegalArgumentException if the URL is not a {@code jdbc:mariadb://host[:port]/} URL
   * @throws IllegalStateException if no connection can be opened with it
   */
  public static MariaDbServer external(String jdbcUrl) {
    return answering(new MariaDbServer(JdbcUrls.requireMariaDb(jdbcUrl)));
  }

  /** Returns the JDBC URL of the main database, user (and password, if any) included. */
  @Override
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** Always false: this kit only connects to MariaDB. */
  @Override
  public boolean isEmbedded() {
    return false;
  }

  @Override
  String product() {
    return "MariaDB";
  }

  @Override
  String jdbcUrlOf(String name) {
    return JdbcUrls.withDatabase(jdbcUrl, name);
  }

  @Override
  DataSource dataSourceOf(String url) {
    return dataSourceFor(url);
  }

  @Override
  boolean closed() {
    return false;
  }

  static DataSource dataSourceFor(String jdbcUrl) {
    try {
      return new MariaDbDataSource(jdbcUrl);
    } catch (SQLException e) {
      throw new IllegalArgumentException(
          "Invalid MariaDB JDBC URL '" + JdbcUrls.redact(jdbcUrl) + "': " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "external " + JdbcUrls.redact(jdbcUrl);
  }
}
