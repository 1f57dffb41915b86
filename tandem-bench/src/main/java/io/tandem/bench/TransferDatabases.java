package io.tandem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import io.tandem.xa.XaCoordinator;
import io.tandem.xa.XaSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import javax.sql.XADataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * The money transfer the XA benchmark and {@code tandem compare} measure: accounts on PostgreSQL
 * (debited), a ledger on MariaDB (credited), each a fresh database with {@code accounts} rows of
 * {@value #OPENING_BALANCE}; the PostgreSQL one also holds Tandem's schema (decision log, outbox,
 * saga state). Money is conserved: the sum over both sides never changes once every transfer has
 * finished.
 */
public final class TransferDatabases implements AutoCloseable {
  public static final long OPENING_BALANCE = 1_000_000;

  static final String DEBIT = "UPDATE accounts SET balance = balance - ? WHERE id = ?";
  static final String CREDIT = "UPDATE ledger SET balance = balance + ? WHERE id = ?";
  static final String REFUND = "UPDATE accounts SET balance = balance + ? WHERE id = ?";
  private static final String PG_SUM = "SELECT coalesce(sum(balance), 0) FROM accounts";
  private static final String MARIA_SUM = "SELECT coalesce(sum(balance), 0) FROM ledger";

  final IsolatedDatabase postgres;
  final IsolatedDatabase mariadb;
  final HikariDataSource pgPool;
  final HikariDataSource mariaPool;
  final int accounts;

  public TransferDatabases(
      PostgresServer pg, MariaDbServer maria, String prefix, int accounts, int pool)
      throws SQLException {
    this.accounts = accounts;
    this.postgres = pg.createDatabase(prefix);
    try {
      this.mariadb = maria.createDatabase(prefix);
    } catch (RuntimeException e) {
      postgres.close();
      throw e;
    }
    this.pgPool = pool("pg-" + prefix, postgres.dataSource(), pool);
    this.mariaPool = pool("maria-" + prefix, mariadb.dataSource(), pool);
    Migrations.migrate(pgPool);
    Migrations.migrate(mariaPool);
    try (Connection c = pgPool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE accounts (id text PRIMARY KEY, balance bigint NOT NULL)");
      s.execute(
          "INSERT INTO accounts SELECT 'acc-' || g, "
              + OPENING_BALANCE
              + " FROM generate_series(1, "
              + accounts
              + ") g");
    }
    try (Connection c = mariaPool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE ledger (id VARCHAR(36) PRIMARY KEY, balance BIGINT NOT NULL) ENGINE=InnoDB");
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger VALUES (?, 0)")) {
        for (int i = 1; i <= accounts; i++) {
          ps.setString(1, "acc-" + i);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
  }

  private static HikariDataSource pool(String name, DataSource source, int size) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(source);
    config.setMaximumPoolSize(size);
    config.setPoolName("bench-" + name);
    return new HikariDataSource(config);
  }

  /** A random account id. */
  String account() {
    return "acc-" + (1 + ThreadLocalRandom.current().nextInt(accounts));
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

  /** A started coordinator over both databases, its decision log in the PostgreSQL one. */
  XaCoordinator coordinator(XaSettings settings) {
    XaCoordinator xa =
        XaCoordinator.builder()
            .settings(settings)
            .decisionLog(pgPool)
            .participant("accounts", accountsXa())
            .participant("ledger", ledgerXa())
            .build();
    xa.start();
    return xa;
  }

  static void update(Connection c, String sql, long amount, String account) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, amount);
      ps.setString(2, account);
      if (ps.executeUpdate() != 1) {
        throw new SQLException("no account " + account);
      }
    }
  }

  /** The bound's transfer: two local transactions, one commit on each database. */
  void localTransfer(String account, long amount) throws SQLException {
    try (Connection c = pgPool.getConnection()) {
      c.setAutoCommit(false);
      update(c, DEBIT, amount, account);
      c.commit();
    }
    try (Connection c = mariaPool.getConnection()) {
      c.setAutoCommit(false);
      update(c, CREDIT, amount, account);
      c.commit();
    }
  }

  /** The two-phase transfer. */
  void xaTransfer(XaCoordinator xa, String account, long amount) throws SQLException {
    xa.inTransaction(
        tx -> {
          update(tx.connection("accounts"), DEBIT, amount, account);
          update(tx.connection("ledger"), CREDIT, amount, account);
          return null;
        });
  }

  /** Money on both sides; equals {@link #total()} whenever no transfer is in flight. */
  long sum() throws SQLException {
    return sum(pgPool, PG_SUM) + sum(mariaPool, MARIA_SUM);
  }

  long total() {
    return OPENING_BALANCE * accounts;
  }

  static long sum(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static String pgSum() {
    return PG_SUM;
  }

  static String mariaSum() {
    return MARIA_SUM;
  }

  @Override
  public void close() {
    pgPool.close();
    mariaPool.close();
    mariadb.close();
    postgres.close();
  }
}
