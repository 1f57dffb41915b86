package io.tandem.xa;

import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import javax.sql.XADataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * The tests' two databases: accounts on PostgreSQL (also the coordinator's database, migrated) and
 * a ledger on MariaDB, each with one table of balances, and a transfer between them.
 */
final class Bank implements AutoCloseable {
  final IsolatedDatabase postgres;
  final IsolatedDatabase mariadb;
  final String node = "t-" + UUID.randomUUID().toString().substring(0, 8);

  Bank(String name) throws SQLException {
    this(TestInfrastructure.postgres().createDatabase(name), name);
  }

  Bank(IsolatedDatabase postgres, String name) throws SQLException {
    this.postgres = postgres;
    this.mariadb = TestInfrastructure.mariadb().createDatabase(name);
    Migrations.migrate(postgres.dataSource());
    try (Connection c = postgres.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE accounts (id text PRIMARY KEY, balance bigint NOT NULL)");
      s.execute("INSERT INTO accounts VALUES ('alice', 1000), ('bob', 1000)");
    }
    try (Connection c = mariadb.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE ledger (id VARCHAR(36) PRIMARY KEY, balance BIGINT NOT NULL) ENGINE=InnoDB");
      s.execute("INSERT INTO ledger VALUES ('alice', 0), ('bob', 0)");
    }
  }

  DataSource coordinatorDatabase() {
    return postgres.dataSource();
  }

  XADataSource accountsXa() {
    PGXADataSource ds = new PGXADataSource();
    ds.setUrl(postgres.jdbcUrl());
    return ds;
  }

  XADataSource ledgerXa() {
    try {
      return new MariaDbDataSource(mariadb.jdbcUrl());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  XaSettings.Builder settings() {
    return XaSettings.builder(node).presumeAbortAfter(Duration.ofSeconds(2));
  }

  XaCoordinator.Builder coordinator(XaSettings settings) {
    return XaCoordinator.builder()
        .settings(settings)
        .decisionLog(coordinatorDatabase())
        .participant("accounts", accountsXa())
        .participant("ledger", ledgerXa());
  }

  XaOperations operations() {
    return XaOperations.builder()
        .decisionLog(coordinatorDatabase())
        .participant("accounts", accountsXa())
        .participant("ledger", ledgerXa())
        .build();
  }

  /** Debits {@code who} on PostgreSQL and credits it on MariaDB by {@code amount}. */
  static Void transfer(XaTransaction tx, String who, long amount) throws SQLException {
    try (PreparedStatement ps =
        tx.connection("accounts")
            .prepareStatement("UPDATE accounts SET balance = balance - ? WHERE id = ?")) {
      ps.setLong(1, amount);
      ps.setString(2, who);
      ps.executeUpdate();
    }
    try (PreparedStatement ps =
        tx.connection("ledger")
            .prepareStatement("UPDATE ledger SET balance = balance + ? WHERE id = ?")) {
      ps.setLong(1, amount);
      ps.setString(2, who);
      ps.executeUpdate();
    }
    return null;
  }

  long account(String who) throws SQLException {
    return balance(postgres.dataSource(), "SELECT balance FROM accounts WHERE id = ?", who);
  }

  long ledger(String who) throws SQLException {
    return balance(mariadb.dataSource(), "SELECT balance FROM ledger WHERE id = ?", who);
  }

  long decisions() throws SQLException {
    return balance(
        postgres.dataSource(), "SELECT count(*) FROM tandem_xa_decision WHERE node_id = ?", node);
  }

  private static long balance(DataSource ds, String sql, String key) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Tandem's prepared branches of this bank's node, on both databases. */
  long preparedOfNode() {
    try (XaOperations ops = operations()) {
      return ops.status().branches().stream()
          .filter(b -> b.node().map(node::equals).orElse(false))
          .count();
    }
  }

  /**
   * Finishes whatever this node left prepared (the decided way, else rolled back), so that the
   * databases can be dropped: PostgreSQL refuses to drop a database with prepared transactions.
   */
  void finishLeftovers() {
    try (XaOperations ops = operations()) {
      ops.recover(node, Duration.ofMillis(1));
    }
    try (Connection c = postgres.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("DELETE FROM tandem_xa_decision WHERE node_id = ?")) {
      ps.setString(1, node);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try {
      finishLeftovers();
    } finally {
      mariadb.close();
      postgres.close();
    }
  }
}
