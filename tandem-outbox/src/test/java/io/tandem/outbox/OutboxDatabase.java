package io.tandem.outbox;

import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** A fresh, migrated database per test class, on the embedded or the configured PostgreSQL. */
final class OutboxDatabase implements AutoCloseable {
  final IsolatedDatabase database;
  final DataSource dataSource;

  OutboxDatabase(String prefix) {
    database = TestInfrastructure.postgres().createDatabase(prefix);
    dataSource = database.dataSource();
    Migrations.migrate(dataSource);
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
}
