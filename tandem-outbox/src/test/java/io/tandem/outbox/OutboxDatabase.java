package io.tandem.outbox;

import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A fresh, migrated database per test class, on PostgreSQL (embedded or configured) or MariaDB, and
 * the few SQL fragments the suites write differently per database.
 */
abstract class OutboxDatabase implements AutoCloseable {
  final IsolatedDatabase database;
  final DataSource dataSource;

  private OutboxDatabase(IsolatedDatabase database, String version) {
    this.database = database;
    this.dataSource = database.dataSource();
    if (version == null) {
      Migrations.migrate(dataSource);
    } else {
      Migrations.migrateTo(dataSource, version);
    }
  }

  static OutboxDatabase postgres(String prefix) {
    return postgres(prefix, null);
  }

  /** A database whose schema stops at migration {@code version} (null: all of them). */
  static OutboxDatabase postgres(String prefix, String version) {
    return new Postgres(TestInfrastructure.postgres().createDatabase(prefix), version);
  }

  /** Skips the calling test class when no MariaDB answers. */
  static OutboxDatabase mariadb(String prefix) {
    return mariadb(prefix, null);
  }

  /** A database whose schema stops at migration {@code version} (null: all of them). */
  static OutboxDatabase mariadb(String prefix, String version) {
    return new MariaDb(TestInfrastructure.mariadb().createDatabase(prefix), version);
  }

  /** Deletes every outbox row, unpublished ones included, which the guard trigger refuses. */
  abstract void clearOutbox() throws SQLException;

  /** The database's clock, as the timestamp columns hold it. */
  abstract String now();

  /** An SQL expression: {@link #now()} minus {@code d}. */
  abstract String ago(Duration d);

  /** An SQL expression: {@link #now()} plus {@code d}. */
  abstract String fromNow(Duration d);

  /** An SQL expression: the text of field {@code field} of JSON column {@code column}. */
  abstract String jsonText(String column, String field);

  /** An SQL expression: a new random UUID, of the event_id column's type. */
  abstract String randomUuid();

  /** Whether this is PostgreSQL (else MariaDB). */
  abstract boolean isPostgres();

  /** {@code text} as an SQL string literal, whatever characters it holds. */
  String literal(String text) {
    String quoted = text.replace("'", "''");
    return "'" + (isPostgres() ? quoted : quoted.replace("\\", "\\\\")) + "'";
  }

  long count(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() {
    database.close();
  }

  private static final class Postgres extends OutboxDatabase {
    Postgres(IsolatedDatabase database, String version) {
      super(database, version);
    }

    @Override
    void clearOutbox() throws SQLException {
      execute("ALTER TABLE tandem_outbox DISABLE TRIGGER tandem_outbox_guard_delete");
      execute("DELETE FROM tandem_outbox");
      execute("ALTER TABLE tandem_outbox ENABLE TRIGGER tandem_outbox_guard_delete");
    }

    @Override
    String now() {
      return "now()";
    }

    @Override
    String ago(Duration d) {
      return "(now() - interval '" + d.toMillis() + " milliseconds')";
    }

    @Override
    String fromNow(Duration d) {
      return "(now() + interval '" + d.toMillis() + " milliseconds')";
    }

    @Override
    String jsonText(String column, String field) {
      return column + "->>'" + field + "'";
    }

    @Override
    String randomUuid() {
      return "gen_random_uuid()";
    }

    @Override
    boolean isPostgres() {
      return true;
    }
  }

  private static final class MariaDb extends OutboxDatabase {
    MariaDb(IsolatedDatabase database, String version) {
      super(database, version);
    }

    @Override
    void clearOutbox() throws SQLException {
      // MariaDB cannot disable a trigger; publishing a row is a delivery update the guard allows.
      execute(
          "UPDATE tandem_outbox SET published_at = UTC_TIMESTAMP(6) WHERE published_at IS NULL");
      execute("DELETE FROM tandem_outbox");
    }

    @Override
    String now() {
      return "UTC_TIMESTAMP(6)";
    }

    @Override
    String ago(Duration d) {
      return "(UTC_TIMESTAMP(6) - INTERVAL " + d.toNanos() / 1000 + " MICROSECOND)";
    }

    @Override
    String fromNow(Duration d) {
      return "(UTC_TIMESTAMP(6) + INTERVAL " + d.toNanos() / 1000 + " MICROSECOND)";
    }

    @Override
    String jsonText(String column, String field) {
      return "JSON_UNQUOTE(JSON_EXTRACT(" + column + ", '$." + field + "'))";
    }

    @Override
    String randomUuid() {
      return "UUID()";
    }

    @Override
    boolean isPostgres() {
      return false;
    }
  }
}
