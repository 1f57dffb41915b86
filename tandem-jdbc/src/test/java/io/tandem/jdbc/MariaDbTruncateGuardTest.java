package io.tandem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MariaDB V11: TRUNCATE fires no trigger there, so an always-empty table's foreign keys make InnoDB
 * refuse it on the tables whose rows hold what Tandem promised to keep (docs/security.md).
 */
@RequiresMariaDb
class MariaDbTruncateGuardTest {
  private static IsolatedDatabase mariadb;

  @BeforeAll
  static void migrate() {
    mariadb = TestInfrastructure.mariadb().createDatabase("truncate_guard"); // or skip
    Migrations.migrate(mariadb.dataSource());
  }

  @AfterAll
  static void drop() {
    if (mariadb != null) {
      mariadb.close();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "tandem_outbox",
        "tandem_inbox",
        "tandem_dead_letter",
        "tandem_saga",
        "tandem_xa_decision"
      })
  void truncateIsRefused(String table) throws SQLException {
    try (Connection c = mariadb.dataSource().getConnection();
        Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.execute("TRUNCATE TABLE " + table))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1701));
    }
  }

  @Test
  void theGuardTableTakesNoRow() throws SQLException {
    try (Connection c = mariadb.dataSource().getConnection();
        Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.execute("INSERT INTO tandem_truncate_guard () VALUES ()"))
          .isInstanceOf(SQLException.class);
    }
  }
}
