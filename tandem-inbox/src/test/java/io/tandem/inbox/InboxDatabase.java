package io.tandem.inbox;

import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A fresh, migrated database per test class, on PostgreSQL (embedded or configured) or MariaDB,
 * with the business table the suite's handlers write to.
 */
final class InboxDatabase implements AutoCloseable {
  private static final String POSTGRES_INVOICES =
      "CREATE TABLE invoices (id bigserial PRIMARY KEY, order_id text NOT NULL,"
          + " event_id uuid NOT NULL)";
  private static final String MARIADB_INVOICES =
      "CREATE TABLE invoices (id bigint AUTO_INCREMENT PRIMARY KEY,"
          + " order_id varchar(255) NOT NULL, event_id char(36) NOT NULL)";

  final IsolatedDatabase database;
  final DataSource dataSource;

  private InboxDatabase(IsolatedDatabase database, String invoicesTable) throws SQLException {
    this.database = database;
    this.dataSource = database.dataSource();
    Migrations.migrate(dataSource);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(invoicesTable);
    }
  }

  static InboxDatabase postgres(String prefix) throws SQLException {
    return new InboxDatabase(
        TestInfrastructure.postgres().createDatabase(prefix), POSTGRES_INVOICES);
  }

  /** Skips the calling test class when no MariaDB answers. */
  static InboxDatabase mariadb(String prefix) throws SQLException {
    return new InboxDatabase(TestInfrastructure.mariadb().createDatabase(prefix), MARIADB_INVOICES);
  }

  @Override
  public void close() {
    database.close();
  }
}
