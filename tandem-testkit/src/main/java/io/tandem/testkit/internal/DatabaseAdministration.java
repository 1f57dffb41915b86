package io.tandem.testkit.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Creates and drops databases on PostgreSQL and MariaDB. Database names cannot be bind parameters
 * in DDL, so only names that passed {@link DatabaseNames#requireValid(String)} are put into these
 * statements.
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

  private static final String MARIADB_SESSIONS =
      "SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()";
  // KILL takes no bind parameter when prepared on the server; the id is a number the server gave.
  private static final String MARIADB_KILL = "KILL CONNECTION %d";
  // A session killed in the middle of a transaction may hold a metadata lock for a moment; the
  // server default would let DROP DATABASE wait for a day.
  private static final String MARIADB_LOCK_WAIT = "SET SESSION lock_wait_timeout = 30";

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
      if (isMariaDb(connection)) {
        dropOnMariaDb(connection, validName);
        return;
      }
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

  private static boolean isMariaDb(Connection connection) throws SQLException {
    String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    return product.contains("mariadb") || product.contains("mysql");
  }

  private static void dropOnMariaDb(Connection connection, String validName) throws SQLException {
    List<Long> sessions = new ArrayList<>();
    try (PreparedStatement list = connection.prepareStatement(MARIADB_SESSIONS)) {
      list.setString(1, validName);
      try (ResultSet rs = list.executeQuery()) {
        while (rs.next()) {
          sessions.add(rs.getLong(1));
        }
      }
    }
    for (long session : sessions) {
      try (Statement kill = connection.createStatement()) {
        kill.execute(String.format(MARIADB_KILL, session));
      } catch (SQLException e) {
        // It ended by itself in the meantime (unknown thread id): nothing left to end.
      }
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute(MARIADB_LOCK_WAIT);
      statement.execute(String.format(DROP_DATABASE, validName));
    }
  }
}
