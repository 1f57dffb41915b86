package io.tandem.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.tandem.core.Redaction;
import picocli.CommandLine.Option;

/** The database options shared by commands that talk to a Tandem schema. */
final class DatabaseOptions {
  @Option(
      names = "--jdbc-url",
      defaultValue = "${env:TANDEM_JDBC_URL}",
      description = "JDBC URL of the database holding tandem_outbox (default: TANDEM_JDBC_URL).")
  String jdbcUrl;

  @Option(
      names = "--db-user",
      defaultValue = "${env:TANDEM_DB_USER}",
      description = "Database user, if not in the URL (default: TANDEM_DB_USER).")
  String user;

  @Option(
      names = "--db-password-env",
      defaultValue = "TANDEM_DB_PASSWORD",
      description =
          "Name of the environment variable holding the password (default: ${DEFAULT-VALUE}).")
  String passwordVariable;

  /** A small pool on the configured database; fails with a clear message when not configured. */
  HikariDataSource pool(String name, int size) {
    if (jdbcUrl == null || jdbcUrl.isBlank()) {
      throw new IllegalArgumentException(
          "no database given: pass --jdbc-url jdbc:postgresql://host:5432/db (or"
              + " jdbc:mariadb://host:3306/db), or set TANDEM_JDBC_URL");
    }
    requireSupportedUrl(jdbcUrl, "--jdbc-url");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    if (user != null && !user.isBlank()) {
      config.setUsername(user);
    }
    String password = System.getenv(passwordVariable);
    if (password != null) {
      config.setPassword(password);
    }
    config.setPoolName(name);
    config.setMaximumPoolSize(size);
    config.setInitializationFailTimeout(10_000);
    return open(config, "--jdbc-url");
  }

  /** Refuses a URL that is not PostgreSQL's, MariaDB's or MySQL's, naming {@code option}. */
  static void requireSupportedUrl(String url, String option) {
    if (!url.startsWith("jdbc:postgresql:")
        && !url.startsWith("jdbc:mariadb:")
        && !url.startsWith("jdbc:mysql:")) {
      throw new IllegalArgumentException(
          option
              + " '"
              + Redaction.redact(url)
              + "' is not a PostgreSQL, MariaDB or MySQL JDBC URL");
    }
  }

  /** Work on a data source, for {@link #withDatabase}. */
  @FunctionalInterface
  interface Work<T> {
    T run(HikariDataSource dataSource) throws Exception;
  }

  /**
   * Runs {@code work} on a one-connection pool of the configured database, closed afterwards; a
   * failure because {@code table} (a table of Tandem's schema) is missing says so ({@link
   * #explainMissingSchema}).
   */
  <T> T withDatabase(String poolName, String table, Work<T> work) throws Exception {
    try (HikariDataSource ds = pool(poolName, 1)) {
      return work.run(ds);
    } catch (io.tandem.jdbc.JdbcException e) {
      throw explainMissingSchema(e, table, "--jdbc-url");
    }
  }

  /**
   * When {@code e} failed because a table of Tandem's schema is missing (PostgreSQL 42P01, MariaDB
   * 42S02), an error that says so and what to do; else {@code e} itself.
   */
  static RuntimeException explainMissingSchema(RuntimeException e, String table, String database) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql
          && ("42P01".equals(sql.getSQLState()) || "42S02".equals(sql.getSQLState()))) {
        return new IllegalArgumentException(
            database
                + " has no "
                + table
                + " table: is it the right database? (tandem migrate creates Tandem's schema)",
            e);
      }
    }
    return e;
  }

  /**
   * Opens a pool, or says which database could not be reached and why (an {@link
   * IllegalArgumentException}: bad input, reported in one line) instead of Hikari's stack trace.
   */
  static HikariDataSource open(HikariConfig config, String what) {
    try {
      return new HikariDataSource(config);
    } catch (HikariPool.PoolInitializationException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new IllegalArgumentException(
          "cannot connect to "
              + what
              + " "
              + Redaction.redact(config.getJdbcUrl())
              + ": "
              + Redaction.redact(cause.getMessage()),
          e);
    }
  }
}
