package io.tandem.testkit;

import io.tandem.testkit.internal.DatabaseAdministration;
import io.tandem.testkit.internal.ExitCleanup;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * An empty database created for one test class by {@link DatabaseServer#createDatabase(String)} (on
 * PostgreSQL or MariaDB) and dropped by {@link #close()}, so test classes never see each other's
 * tables or rows.
 *
 * <pre>{@code
 * static IsolatedDatabase database;
 *
 * @BeforeAll
 * static void createDatabase() {
 *   database = TestInfrastructure.postgres().createDatabase("outbox_relay_test");
 * }
 *
 * @AfterAll
 * static void dropDatabase() {
 *   database.close();
 * }
 * }</pre>
 *
 * <p>Its connections use the user of the server's URL, who owns the database. Thread safety: all
 * methods may be called from any thread.
 */
public final class IsolatedDatabase implements AutoCloseable {

  private final DatabaseServer server;
  private final String name;
  private final String jdbcUrl;
  private final ExitCleanup.Registration exitCleanup;
  private final AtomicBoolean closed = new AtomicBoolean();

  IsolatedDatabase(DatabaseServer server, String name, String jdbcUrl) {
    this.server = server;
    this.name = name;
    this.jdbcUrl = jdbcUrl;
    // An embedded server's databases go with its data directory; no need to drop them at exit.
    this.exitCleanup =
        server.isEmbedded() ? null : ExitCleanup.register("drop database " + name, this::drop);
  }

  /** Returns the database name, for example {@code relay_test_k3x9q0m2a7bz}. */
  public String name() {
    return name;
  }

  /** Returns the JDBC URL of this database, with the server URL's user and properties. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** Returns a new data source for this database; each call returns a fresh instance. */
  public DataSource dataSource() {
    return server.dataSourceOf(jdbcUrl);
  }

  /** Returns the server that holds this database. */
  public DatabaseServer server() {
    return server;
  }

  /**
   * Drops the database, ending any sessions still connected to it. Safe to call more than once;
   * does nothing once an embedded server is closed, as its databases are gone with it.
   *
   * @throws IllegalStateException if the database cannot be dropped
   */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    if (exitCleanup != null) {
      exitCleanup.cancel();
    }
    if (!server.closed()) {
      drop();
    }
  }

  private void drop() {
    try {
      DatabaseAdministration.drop(server.dataSource(), name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Cannot drop database " + name + " on " + server + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "database " + name + " on " + server;
  }
}
