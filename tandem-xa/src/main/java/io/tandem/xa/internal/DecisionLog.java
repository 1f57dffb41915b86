package io.tandem.xa.internal;

import io.tandem.jdbc.JdbcException;
import io.tandem.xa.DecisionRecord;
import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.XaConfigurationException;
import io.tandem.xa.XaDecision;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision log: table {@code tandem_xa_decision} in the coordinator's database. Each statement
 * runs alone in auto-commit, so a decision is durable when {@link #recordCommit} returns WRITTEN.
 */
public final class DecisionLog {
  private static final Logger log = LoggerFactory.getLogger(DecisionLog.class);

  private final DataSource dataSource;
  private final XaDialect dialect;

  private DecisionLog(DataSource dataSource, XaDialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /**
   * Opens the log on {@code dataSource}, checking that its table exists.
   *
   * @throws XaConfigurationException when it does not (the migrations were not applied)
   * @throws JdbcException when the database cannot be reached
   */
  public static DecisionLog open(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      XaDialect dialect = XaDialect.of(c);
      try (PreparedStatement ps = c.prepareStatement(dialect.decisionTableCheck())) {
        ps.executeQuery().close();
      } catch (SQLException e) {
        throw new XaConfigurationException(
            List.of(
                "the coordinator's database has no tandem_xa_decision table ("
                    + e.getMessage()
                    + "): apply Tandem's migrations to it (Migrations.migrate, or tandem migrate)"));
      }
      return new DecisionLog(dataSource, dialect);
    } catch (SQLException e) {
      throw new JdbcException("cannot connect to the coordinator's database", e);
    }
  }

  // Every statement is its own transaction: a pool that hands out connections outside auto-commit
  // would otherwise roll the decision back on close.
  private Connection connection() throws SQLException {
    Connection c = dataSource.getConnection();
    try {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      return c;
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  /** Writes the commit decision for {@code global} before phase 2. */
  public CommitProtocol.LogResult recordCommit(
      GlobalTransactionId global, List<String> participants) {
    try {
      insert(global, XaDecision.COMMIT, participants, "coordinator");
      return CommitProtocol.LogResult.WRITTEN;
    } catch (SQLException e) {
      if (dialect.sql().isUniqueViolation(e)) {
        Optional<DecisionRecord> there = findQuietly(global);
        if (there.isPresent()) {
          return there.get().decision() == XaDecision.COMMIT
              ? CommitProtocol.LogResult.WRITTEN
              : CommitProtocol.LogResult.ROLLBACK_RECORDED;
        }
        return CommitProtocol.LogResult.UNKNOWN;
      }
      log.warn("writing the commit decision of {} failed: {}", global, e.getMessage());
      return XaErrors.outcomeUnknown(e)
          ? CommitProtocol.LogResult.UNKNOWN
          : CommitProtocol.LogResult.NOT_WRITTEN;
    }
  }

  /**
   * Records a rollback for {@code global} unless a decision is there already.
   *
   * @return the decision that holds now: ROLLBACK when this call wrote it, else the one found
   */
  public XaDecision recordRollback(
      GlobalTransactionId global, List<String> participants, String decidedBy) {
    return record(global, XaDecision.ROLLBACK, participants, decidedBy);
  }

  /**
   * Records {@code decision} for {@code global} unless a decision is there already.
   *
   * @return the decision that holds now
   */
  public XaDecision record(
      GlobalTransactionId global,
      XaDecision decision,
      List<String> participants,
      String decidedBy) {
    try {
      insert(global, decision, participants, decidedBy);
      return decision;
    } catch (SQLException e) {
      if (dialect.sql().isUniqueViolation(e)) {
        return find(global).map(DecisionRecord::decision).orElse(decision);
      }
      throw new JdbcException("cannot record the " + decision + " decision of " + global, e);
    }
  }

  private void insert(
      GlobalTransactionId global, XaDecision decision, List<String> participants, String decidedBy)
      throws SQLException {
    try (Connection c = connection();
        PreparedStatement ps = c.prepareStatement(dialect.decisionInsert())) {
      ps.setString(1, global.toString());
      ps.setString(2, global.nodeId());
      ps.setString(3, decision.name());
      ps.setString(4, String.join(",", participants));
      ps.setString(5, decidedBy);
      ps.executeUpdate();
    }
  }

  /** The decision for {@code global}, if one is logged. */
  public Optional<DecisionRecord> find(GlobalTransactionId global) {
    try (Connection c = connection();
        PreparedStatement ps = c.prepareStatement(dialect.decisionFind())) {
      ps.setString(1, global.toString());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new JdbcException("cannot read the decision of " + global, e);
    }
  }

  private Optional<DecisionRecord> findQuietly(GlobalTransactionId global) {
    try {
      return find(global);
    } catch (JdbcException e) {
      return Optional.empty();
    }
  }

  /** Every logged decision of {@code nodeId} (null: of every node), oldest first. */
  public List<DecisionRecord> list(String nodeId) {
    List<DecisionRecord> records = new ArrayList<>();
    try (Connection c = connection();
        PreparedStatement ps = c.prepareStatement(dialect.decisionList())) {
      ps.setString(1, nodeId);
      ps.setString(2, nodeId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          try {
            records.add(read(rs));
          } catch (IllegalArgumentException notOurs) {
            log.warn("ignoring a decision record with an unreadable id: {}", notOurs.getMessage());
          }
        }
      }
    } catch (SQLException e) {
      throw new JdbcException("cannot read the decision log", e);
    }
    return records;
  }

  private DecisionRecord read(ResultSet rs) throws SQLException {
    String participants = rs.getString("participants");
    return new DecisionRecord(
        GlobalTransactionId.parse(rs.getString("gtrid")),
        XaDecision.valueOf(rs.getString("decision")),
        participants.isEmpty() ? List.of() : Arrays.asList(participants.split(",")),
        rs.getString("decided_by"),
        dialect.sql().readInstant(rs, "decided_at"),
        Optional.ofNullable(rs.getString("heuristic")));
  }

  /** Deletes a finished decision; a failure only leaves it for recovery to forget. */
  public void forget(GlobalTransactionId global, XaDecision decision) {
    try (Connection c = connection();
        PreparedStatement ps = c.prepareStatement(dialect.decisionForget())) {
      ps.setString(1, global.toString());
      ps.setString(2, decision.name());
      ps.executeUpdate();
    } catch (SQLException e) {
      log.debug("forgetting {} failed, recovery forgets it later: {}", global, e.getMessage());
    }
  }

  /** Notes that a branch of {@code global} was decided by someone else; the record is then kept. */
  public void noteHeuristic(GlobalTransactionId global, String what) {
    try (Connection c = connection();
        PreparedStatement ps = c.prepareStatement(dialect.decisionNoteHeuristic())) {
      ps.setString(1, what);
      ps.setString(2, global.toString());
      ps.executeUpdate();
    } catch (SQLException e) {
      log.error("cannot note the heuristic outcome of {} ({}): {}", global, what, e.getMessage());
    }
  }

  /** Deletes a decision record, heuristic note and all (the operator's forget). */
  public boolean delete(GlobalTransactionId global) {
    try (Connection c = connection();
        PreparedStatement ps = c.prepareStatement(dialect.decisionDelete())) {
      ps.setString(1, global.toString());
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new JdbcException("cannot delete the decision of " + global, e);
    }
  }

  /** Records an operator's resolution. */
  public void recordResolution(
      GlobalTransactionId global,
      XaDecision action,
      Optional<XaDecision> loggedBefore,
      boolean forced,
      String branches,
      String operator,
      String reason) {
    try (Connection c = connection();
        PreparedStatement ps = c.prepareStatement(dialect.resolutionInsert())) {
      ps.setString(1, global.toString());
      ps.setString(2, action.name());
      ps.setString(3, loggedBefore.map(Enum::name).orElse(null));
      ps.setBoolean(4, forced);
      ps.setString(5, branches);
      ps.setString(6, operator);
      ps.setString(7, reason);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new JdbcException("cannot record the resolution of " + global, e);
    }
  }
}
