package io.tandem.xa.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.PostgresDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Two-phase commit's SQL for PostgreSQL (prepared transactions). */
final class PostgresXaDialect implements XaDialect {
  static final PostgresXaDialect INSTANCE = new PostgresXaDialect();

  // The outbox trigger (migration V12) does not notify in a session that says it runs XA branches:
  // PostgreSQL refuses to PREPARE a transaction that ran NOTIFY.
  private static final String SESSION_SETUP = "SET tandem.xa_branch TO 'on'";

  // No transaction id assigned means the branch wrote nothing (a row lock assigns one too).
  private static final String BRANCH_CHECK =
      """
      SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote,
             coalesce(current_setting('tandem.outbox_appended', true), '') = 'on' AS outbox_appended
      """;

  // The channel the relays listen on.
  private static final String WAKE =
      "SELECT pg_notify('" + PostgresDialect.OUTBOX_CHANNEL + "', '')";

  // A prepared transaction's locks carry no pid; its virtual transaction id ties them to the
  // transaction-id lock, whose transactionid is pg_prepared_xacts.transaction. Sessions blocked by
  // its row locks wait on that transaction-id lock.
  private static final String LIST_PREPARED =
      """
      SELECT p.gid, p.prepared, p.owner,
             (SELECT string_agg(l.mode || ' on ' || l.relation::regclass::text, ', '
                                ORDER BY l.relation::regclass::text)
                FROM pg_locks t
                JOIN pg_locks l ON l.virtualtransaction = t.virtualtransaction AND l.pid IS NULL
                                AND l.locktype = 'relation'
                JOIN pg_class c ON c.oid = l.relation AND c.relkind IN ('r', 'p')
               WHERE t.locktype = 'transactionid' AND t.transactionid = p.transaction
                 AND t.pid IS NULL) AS locks,
             (SELECT count(*) FROM pg_locks w
               WHERE w.locktype = 'transactionid' AND w.transactionid = p.transaction
                 AND NOT w.granted) AS blocked
        FROM pg_prepared_xacts p
       WHERE p.database = current_database()
       ORDER BY p.prepared, p.gid
      """;

  private static final String SETTINGS =
      """
      SELECT current_setting('max_prepared_transactions')::int AS max_prepared,
             (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
             current_user AS me
      """;

  private static final String FOREIGN_OWNERS =
      """
      SELECT DISTINCT owner FROM pg_prepared_xacts
       WHERE database = current_database() AND owner <> current_user AND gid LIKE ?
      """;

  private static final String FORGET =
      """
      DELETE FROM tandem_xa_decision d
       USING (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
       WHERE d.gtrid = ? AND d.decision = ? AND d.heuristic IS NULL
      """;

  private PostgresXaDialect() {}

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public Dialect sql() {
    return PostgresDialect.INSTANCE;
  }

  @Override
  public Optional<String> sessionSetup() {
    return Optional.of(SESSION_SETUP);
  }

  @Override
  public Optional<String> branchCheck() {
    return Optional.of(BRANCH_CHECK);
  }

  @Override
  public Optional<String> wakeOutboxRelays() {
    return Optional.of(WAKE);
  }

  @Override
  public Listing listPrepared(Connection connection) throws SQLException {
    List<ListedBranch> branches = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(LIST_PREPARED)) {
      while (rs.next()) {
        String gid = rs.getString("gid");
        Optional<TandemXid> tandem = TandemXid.fromPostgresGid(gid);
        String locks = rs.getString("locks");
        branches.add(
            new ListedBranch(
                tandem.map(TandemXid::toString).orElse(gid),
                tandem,
                Optional.ofNullable(rs.getTimestamp("prepared")).map(t -> t.toInstant()),
                Optional.ofNullable(rs.getString("owner")),
                locks == null ? List.of() : Arrays.asList(locks.split(", ")),
                rs.getInt("blocked")));
      }
    }
    return new Listing(branches, Optional.empty());
  }

  @Override
  public List<String> startupProblems(Connection c, String participant, int maxConnections)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    int maxPrepared;
    boolean superuser;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(SETTINGS)) {
      rs.next();
      maxPrepared = rs.getInt("max_prepared");
      superuser = rs.getBoolean("superuser");
    }
    if (maxPrepared == 0) {
      problems.add(
          "participant '"
              + participant
              + "': PostgreSQL has max_prepared_transactions = 0, so it refuses PREPARE"
              + " TRANSACTION (\"prepared transactions are disabled\"). Set"
              + " max_prepared_transactions to at least "
              + maxConnections
              + " (the coordinator's connections to it) in postgresql.conf and restart"
              + " PostgreSQL.");
    } else if (maxPrepared < maxConnections) {
      problems.add(
          "participant '"
              + participant
              + "': PostgreSQL allows "
              + maxPrepared
              + " prepared transactions (max_prepared_transactions) but the coordinator may"
              + " prepare "
              + maxConnections
              + " at once (maxConnectionsPerParticipant): raise max_prepared_transactions and"
              + " restart PostgreSQL, or lower maxConnectionsPerParticipant.");
    }
    if (!superuser) {
      try (var ps = c.prepareStatement(FOREIGN_OWNERS)) {
        ps.setString(1, TandemXid.FORMAT_ID + "\\_%");
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            problems.add(
                "participant '"
                    + participant
                    + "': Tandem's prepared transactions owned by '"
                    + rs.getString(1)
                    + "' cannot be finished by this user (PostgreSQL lets only their owner or a"
                    + " superuser COMMIT PREPARED): connect as '"
                    + rs.getString(1)
                    + "' or as a superuser.");
          }
        }
      }
    }
    return problems;
  }

  @Override
  public String decisionForget() {
    return FORGET;
  }
}
