package io.tandem.testkit.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Creates and drops databases. Database names cannot be bind parameters in DDL, so only names that
 * passed {@link DatabaseNames#requireValid(String)} are put into these statements.
 */
public final class DatabaseAdministration {

  private static final String CREATE_DATABASE = "CREATE DATABASE %s";
  private static final String DROP_DATABASE_FORCE = "DROP DATABASE IF EXISTS %s WITH (FORCE)";
  private static final String DROP_DATABASE = "DROP DATABASE IF EXISTS %s";
  private static final String TERMINATE_SESSIONS =
      """
      SELECT pg_terminate_backend(pid)
        FROM pg_stat_activity
       WHERE datname = ? AND pid <> pg_backend_pid()
      """;

  /** {@code WITH (FORCE)} exists since PostgreSQL 13. */
  private static final int FIRST_VERSION_WITH_FORCE = 13;

  private DatabaseAdministration() {}

  /** Creates database {@code name} through a connection from {@code server}. */
  public static void create(DataSource server, String name) throws SQLException {
    String validName = DatabaseNames.requireValid(name);
    try (Connection connection = server.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(String.format(CREATE_DATABASE, validName));
    }
  }

  /** Drops database {@code name}, closing its open sessions first; a missing one is fine. */
  public static void drop(DataSource server, String name) throws SQLException {
    String validName = DatabaseNames.requireValid(name);
    try (Connection connection = server.getConnection()) {
      if (connection.getMetaData().getDatabaseMajorVersion() >= FIRST_VERSION_WITH_FORCE) {
        try (Statement statement = connection.createStatement()) {
          statement.execute(String.format(DROP_DATABASE_FORCE, validName));
        }
        return;
      }
      try (var terminate = connection.prepareStatement(TERMINATE_SESSIONS)) {
        terminate.setString(1, validName);
        terminate.execute();
      }
      try (Statement statement = connection.createStatement()) {
        statement.execute(String.format(DROP_DATABASE, validName));
      }
    }
  }
}
