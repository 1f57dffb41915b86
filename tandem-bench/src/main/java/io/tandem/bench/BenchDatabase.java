package io.tandem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** A fresh, migrated database for one benchmark phase, with a connection pool. */
final class BenchDatabase implements AutoCloseable {
  // Bulk rows: version-major order (v1 of every aggregate, then v2, ...), like many aggregates
  // each changing now and then. The payload is a small JSON document of a typical shape.
  private static final String BULK_INSERT =
      """
      INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id, aggregate_version,
                                 event_type, schema_version, payload, headers, occurred_at)
      SELECT gen_random_uuid(), 'Account', 'acc-' || (g % ?), (g / ?) + 1, 'Deposited', 1,
             jsonb_build_object('accountId', 'acc-' || (g % ?), 'amountCents', g % 10000,
                                'currency', 'EUR', 'note', 'benchmark deposit'),
             '{"correlationid": "bench"}'::jsonb, now()
        FROM generate_series(?, ? - 1) g
      """;

  final IsolatedDatabase database;
  final HikariDataSource pool;

  BenchDatabase(PostgresServer server, String prefix, int poolSize) {
    database = server.createDatabase(prefix);
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("bench-" + prefix);
    pool = new HikariDataSource(config);
    Migrations.migrate(pool);
  }

  /** Inserts rows {@code from .. to-1} of the bulk sequence over {@code aggregates} aggregates. */
  void bulkInsert(long from, long to, int aggregates) throws SQLException {
    insertRange(from, to, aggregates);
    execute("ANALYZE tandem_outbox");
  }

  /** Inserts rows {@code from .. to-1} of the bulk sequence in one transaction, no ANALYZE. */
  void insertRange(long from, long to, int aggregates) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(BULK_INSERT)) {
      ps.setInt(1, aggregates);
      ps.setInt(2, aggregates);
      ps.setInt(3, aggregates);
      ps.setLong(4, from);
      ps.setLong(5, to);
      ps.executeUpdate();
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  long count(String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  long pending() throws SQLException {
    return count("SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL");
  }

  @Override
  public void close() {
    pool.close();
    database.close();
  }
}
