package io.tandem.xa.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.MariaDbDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of two-phase commit for one database family: on a participant, the session setup, the
 * check before prepare, the listing of prepared branches with their locks and the start-up checks;
 * on the coordinator's database, the decision log's statements. Stateless and thread-safe.
 */
public interface XaDialect {

  /** The family's name, as {@link Dialect#name()}. */
  String name();

  /** The dialect of the database behind {@code connection}. */
  static XaDialect of(Connection connection) {
    return Dialect.of(connection) instanceof MariaDbDialect
        ? MariaDbXaDialect.INSTANCE
        : PostgresXaDialect.INSTANCE;
  }

  /** Tandem's general dialect of the same family (timestamps, unique violations). */
  Dialect sql();

  // ---- participant ------------------------------------------------------------------------

  /** Run once on each new XA connection of a participant; empty when nothing is needed. */
  Optional<String> sessionSetup();

  /**
   * Run in a branch before it ends: columns {@code wrote} (whether the branch may have written) and
   * {@code outbox_appended} (whether it inserted into the outbox). Empty where the database cannot
   * tell cheaply: every branch then counts as writing.
   */
  Optional<String> branchCheck();

  /** Run after a commit whose branch appended to the outbox; empty when not needed. */
  Optional<String> wakeOutboxRelays();

  /** Every prepared branch the participant's database lists, Tandem's and foreign. */
  Listing listPrepared(Connection connection) throws SQLException;

  /**
   * What stops two-phase commit on this database, each with what to change; empty when nothing.
   *
   * @param participant the participant's name, for the messages
   * @param maxConnections the coordinator's connection limit for it
   */
  List<String> startupProblems(Connection connection, String participant, int maxConnections)
      throws SQLException;

  /** The database's product and version, for status output. */
  default String describe(Connection connection) throws SQLException {
    return connection.getMetaData().getDatabaseProductName()
        + " "
        + connection.getMetaData().getDatabaseProductVersion();
  }

  // ---- decision log (coordinator's database) ----------------------------------------------

  /** Checks the decision log exists (no row). */
  default String decisionTableCheck() {
    return "SELECT gtrid FROM tandem_xa_decision WHERE 1 = 0";
  }

  /** Parameters: gtrid, node_id, decision, participants, decided_by. */
  default String decisionInsert() {
    return """
        INSERT INTO tandem_xa_decision (gtrid, node_id, decision, participants, decided_by)
        VALUES (?, ?, ?, ?, ?)
        """;
  }

  /** Parameter: gtrid. Columns: every column. */
  default String decisionFind() {
    return """
        SELECT gtrid, node_id, decision, participants, decided_by, decided_at, heuristic
          FROM tandem_xa_decision WHERE gtrid = ?
        """;
  }

  /** Parameter: node_id, or null for every node. Columns: every column. Oldest first. */
  default String decisionList() {
    return """
        SELECT gtrid, node_id, decision, participants, decided_by, decided_at, heuristic
          FROM tandem_xa_decision WHERE (? IS NULL OR node_id = ?)
         ORDER BY decided_at, gtrid
        """;
  }

  /**
   * Deletes a finished decision that has no heuristic note. Parameters: gtrid, decision. It may
   * commit without waiting for the disk: a forgotten decision lost in a crash is forgotten again.
   */
  String decisionForget();

  /** Notes a heuristic outcome on a decision. Parameters: heuristic, gtrid. */
  default String decisionNoteHeuristic() {
    return "UPDATE tandem_xa_decision SET heuristic = ? WHERE gtrid = ?";
  }

  /** Clears a decision (the operator's forget). Parameter: gtrid. */
  default String decisionDelete() {
    return "DELETE FROM tandem_xa_decision WHERE gtrid = ?";
  }

  /**
   * Records an operator's resolution. Parameters: gtrid, action, logged_before, forced, branches,
   * operator, reason.
   */
  default String resolutionInsert() {
    return """
        INSERT INTO tandem_xa_resolution
            (gtrid, action, logged_before, forced, branches, operator, reason)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """;
  }
}
