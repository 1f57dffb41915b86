package io.tandem.drill;

import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.xa.XaOperations;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * The books of {@code coordinator-crash}: an account on PostgreSQL and a ledger on MariaDB, each
 * with a {@code transfer_log}; what the checker reads from them, and the branches left in doubt
 * (through {@link XaOperations}).
 */
final class XaBooks {
  private XaBooks() {}

  static void prepare(DataSource pg, DataSource maria) throws SQLException {
    Migrations.migrate(pg);
    try (Connection c = pg.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)");
      s.execute("INSERT INTO accounts VALUES (1, 0)");
      s.execute("CREATE TABLE transfer_log (id text PRIMARY KEY)");
    }
    try (Connection c = maria.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE ledger (id INT PRIMARY KEY, balance BIGINT NOT NULL) ENGINE=InnoDB");
      s.execute("INSERT INTO ledger VALUES (1, 0)");
      s.execute("CREATE TABLE transfer_log (id VARCHAR(36) PRIMARY KEY) ENGINE=InnoDB");
    }
  }

  private static XaOperations operations(IsolatedDatabase pg, IsolatedDatabase maria)
      throws SQLException {
    PGXADataSource accounts = new PGXADataSource();
    accounts.setUrl(pg.jdbcUrl());
    return XaOperations.builder()
        .decisionLog(pg.dataSource())
        .participant("accounts", accounts)
        .participant("ledger", new MariaDbDataSource(maria.jdbcUrl()))
        .build();
  }

  static long inDoubt(IsolatedDatabase pg, IsolatedDatabase maria, String node) {
    try (XaOperations ops = operations(pg, maria)) {
      return ops.status().tandemBranches().stream()
          .filter(b -> b.node().map(node::equals).orElse(false))
          .count();
    } catch (SQLException | RuntimeException e) {
      return Long.MAX_VALUE;
    }
  }

  static void recover(IsolatedDatabase pg, IsolatedDatabase maria, String node)
      throws SQLException {
    try (XaOperations ops = operations(pg, maria)) {
      ops.recover(node, Duration.ofMillis(1));
    }
  }

  static boolean logged(DataSource ds, String id) throws SQLException {
    try (Connection c = ds.getConnection();
        var ps = c.prepareStatement("SELECT count(*) FROM transfer_log WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) == 1;
      }
    }
  }

  static Set<String> log(DataSource ds) throws SQLException {
    Set<String> ids = new HashSet<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM transfer_log")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  static long sum(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
