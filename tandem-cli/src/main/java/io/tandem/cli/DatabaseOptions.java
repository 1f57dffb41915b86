package io.tandem.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
    if (!jdbcUrl.startsWith("jdbc:postgresql:")
        && !jdbcUrl.startsWith("jdbc:mariadb:")
        && !jdbcUrl.startsWith("jdbc:mysql:")) {
      throw new IllegalArgumentException(
          "--jdbc-url '" + jdbcUrl + "' is not a PostgreSQL, MariaDB or MySQL JDBC URL");
    }
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
    return new HikariDataSource(config);
  }
}
