package io.tandem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxOperations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A fresh, migrated database for one benchmark phase, with a connection pool. Backlogs of up to a
 * million rows are inserted by one {@code generate_series} statement (a fixture: through {@link
 * Outbox#appendAll} a 1M-row backlog would take minutes of the run); everything else reads and
 * writes Tandem's tables through the library ({@link Outbox}, {@link OutboxOperations}).
 */
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

  private static final Outbox OUTBOX = Outbox.create();

  final IsolatedDatabase database;
  final HikariDataSource pool;
  final OutboxOperations operations;

  BenchDatabase(PostgresServer server, String prefix, int poolSize) {
    database = server.createDatabase(prefix);
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("bench-" + prefix);
    pool = new HikariDataSource(config);
    Migrations.migrate(pool);
    operations = OutboxOperations.create(pool);
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

  /**
   * Commits row {@code n} of the bulk sequence alone, through {@link Outbox#append}: the same event
   * as {@link #insertRange} would insert, for a paced load of single-event commits.
   *
   * @return the committed event's id
   */
  UUID append(long n, int aggregates) {
    String account = "acc-" + (n % aggregates);
    Event event =
        Event.builder()
            .aggregate("Account", account, n / aggregates + 1)
            .eventType("Deposited")
            .payload(
                "{\"accountId\": \""
                    + account
                    + "\", \"amountCents\": "
                    + (n % 10000)
                    + ", \"currency\": \"EUR\", \"note\": \"benchmark deposit\"}")
            .headers(EventHeaders.builder().correlationId("bench").build())
            .build();
    Transactions.inTransaction(
        pool,
        c -> {
          OUTBOX.append(c, event);
          return null;
        });
    return event.eventId();
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

  /** Events waiting to be published, through the library's operations API. */
  long pending() {
    return operations.pending();
  }

  @Override
  public void close() {
    pool.close();
    database.close();
  }
}
