package io.tandem.jdbc;

import io.tandem.core.TandemException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies Tandem's schema (outbox, inbox) to a database with Flyway, from the versioned SQL files
 * shipped in this jar under {@code db/<dialect>/}.
 *
 * <p>Tandem keeps its own history table, {@value #HISTORY_TABLE}, so it never interferes with an
 * application's own Flyway migrations in the same schema. Running it again is a no-op.
 *
 * <pre>{@code
 * Migrations.migrate(dataSource);
 * }</pre>
 */
public final class Migrations {
  /** Flyway's history table for Tandem's migrations. */
  public static final String HISTORY_TABLE = "tandem_schema_history";

  private Migrations() {}

  /**
   * Brings the schema of {@code dataSource}'s current schema up to date.
   *
   * @return the number of migrations applied by this call (0 when already current)
   */
  public static int migrate(DataSource dataSource) {
    return migrate(dataSource, null);
  }

  /**
   * Brings the schema of {@code dataSource}'s current schema up to {@code version} and no further
   * (the number of a migration file of its database family, e.g. {@code "8"}): for a roll-out in
   * steps, and for tests of an upgrade with rows written under an older schema.
   *
   * @return the number of migrations applied by this call
   */
  public static int migrateTo(DataSource dataSource, String version) {
    if (version == null || !version.matches("[1-9][0-9]*")) {
      throw new IllegalArgumentException(
          "version must be a migration number such as \"8\", was " + version);
    }
    return migrate(dataSource, version);
  }

  /**
   * Applies Tandem's migrations through an application's own Flyway set-up: the data source,
   * schemas, callbacks and other settings of {@code base} (for instance the {@code Flyway} bean
   * Spring Boot configured from {@code spring.flyway.*}), with Tandem's locations, naming and
   * history table {@value #HISTORY_TABLE} in place of the application's, so the two histories stay
   * apart.
   *
   * @return the number of migrations applied by this call
   */
  public static int migrateWith(org.flywaydb.core.api.configuration.Configuration base) {
    DataSource dataSource = base.getDataSource();
    if (dataSource == null) {
      throw new IllegalArgumentException("the Flyway configuration has no data source");
    }
    return migrate(
        dataSource, null, Flyway.configure(Migrations.class.getClassLoader()).configuration(base));
  }

  private static int migrate(DataSource dataSource, String target) {
    return migrate(
        dataSource,
        target,
        Flyway.configure(Migrations.class.getClassLoader()).dataSource(dataSource));
  }

  private static int migrate(
      DataSource dataSource,
      String target,
      org.flywaydb.core.api.configuration.FluentConfiguration configuration) {
    Dialect dialect;
    try (Connection c = dataSource.getConnection()) {
      dialect = Dialect.of(c);
    } catch (SQLException e) {
      throw new JdbcException("cannot connect to apply Tandem's migrations", e);
    }
    try {
      configuration
          .locations("classpath:db/" + dialect.name())
          .sqlMigrationPrefix("V")
          .sqlMigrationSeparator("__")
          .sqlMigrationSuffixes(".sql")
          .target("latest")
          .placeholderReplacement(false)
          .table(HISTORY_TABLE)
          .baselineOnMigrate(true)
          .baselineVersion("0")
          .loggers("slf4j");
      if (target != null) {
        configuration.target(target);
      }
      MigrateResult result = configuration.load().migrate();
      return result.migrationsExecuted;
    } catch (FlywayException e) {
      throw new TandemException("applying Tandem's schema migrations failed: " + e.getMessage(), e);
    }
  }
}
