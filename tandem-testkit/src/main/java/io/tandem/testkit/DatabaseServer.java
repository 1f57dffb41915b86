package io.tandem.testkit;

import io.tandem.testkit.internal.DatabaseAdministration;
import io.tandem.testkit.internal.DatabaseNames;
import io.tandem.testkit.internal.JdbcUrls;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A database server that hands out throw-away databases: {@link PostgresServer} or {@link
 * MariaDbServer}. Tests written once for both (contract suites) take a {@code DatabaseServer} and
 * call {@link #createDatabase(String)}.
 *
 * <pre>{@code
 * DatabaseServer server = TestInfrastructure.mariadb(); // or TestInfrastructure.postgres()
 * try (IsolatedDatabase database = server.createDatabase("relay_test")) {
 *   DataSource dataSource = database.dataSource();
 *   ...
 * }
 * }</pre>
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public abstract sealed class DatabaseServer permits PostgresServer, MariaDbServer {

  DatabaseServer() {}

  /** Returns the JDBC URL of the server's main database, user (and password, if any) included. */
  public abstract String jdbcUrl();

  /** Returns a new data source for the main database; each call returns a fresh instance. */
  public DataSource dataSource() {
    return dataSourceOf(jdbcUrl());
  }

  /** Returns whether this server was started by this kit (and is stopped by it). */
  public abstract boolean isEmbedded();

  /**
   * Creates an empty database named {@code prefix + "_" +} a random suffix, for example {@code
   * relay_test_k3x9q0m2a7bz}. It is dropped by {@link IsolatedDatabase#close()}; databases of an
   * external server that were not closed are dropped at JVM exit (best effort), those of an
   * embedded server go with its data directory.
   *
   * @param prefix a letter followed by letters, digits or underscores, at most 40 characters; it is
   *     lower-cased
   * @throws IllegalArgumentException if the prefix is not valid
   * @throws IllegalStateException if this server is closed or the database cannot be created
   */
  public IsolatedDatabase createDatabase(String prefix) {
    String name = DatabaseNames.unique(prefix);
    if (closed()) {
      throw new IllegalStateException(
          "Cannot create database "
              + name
              + ": the "
              + product()
              + " server "
              + this
              + " is closed");
    }
    try {
      DatabaseAdministration.create(dataSource(), name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Cannot create database " + name + " on " + this + ": " + e.getMessage(), e);
    }
    return new IsolatedDatabase(this, name, jdbcUrlOf(name));
  }

  /** The server's product name for messages, e.g. {@code PostgreSQL}. */
  abstract String product();

  /**
   * {@code server} (an external one), once a connection to it answers {@code SELECT 1}.
   *
   * @throws IllegalStateException if it does not, saying what to check
   */
  static <S extends DatabaseServer> S answering(S server) {
    try (Connection connection = server.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("SELECT 1");
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Cannot connect to the external "
              + server.product()
              + " at "
              + JdbcUrls.redact(server.jdbcUrl())
              + ": "
              + e.getMessage()
              + ". Check that it runs and that the URL carries the right user and password.",
          e);
    }
    return server;
  }

  /** The JDBC URL of database {@code name} on this server, with this URL's user and properties. */
  abstract String jdbcUrlOf(String name);

  /** A data source for a URL of this server. */
  abstract DataSource dataSourceOf(String jdbcUrl);

  /** Whether this (embedded) server was closed; an external server never is. */
  abstract boolean closed();
}
