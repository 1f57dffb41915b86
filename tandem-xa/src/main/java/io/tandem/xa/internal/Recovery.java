package io.tandem.xa.internal;

import io.tandem.xa.DecisionRecord;
import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.RecoveryReport;
import io.tandem.xa.XaDecision;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One recovery pass for one node: read the decision log, list every participant's prepared
 * branches, and apply {@link RecoveryPlanner} to each of the node's branches; then forget the
 * decisions whose branches have all finished. Never touches a foreign branch or another node's.
 */
public final class Recovery {
  private static final Logger log = LoggerFactory.getLogger(Recovery.class);
  private static final Duration LIST_TIMEOUT = Duration.ofSeconds(10);

  private final String nodeId;
  private final Map<String, Participant> participants;
  private final DecisionLog decisionLog;
  private final Predicate<GlobalTransactionId> inFlight;
  private final Duration presumeAbortAfter;
  private final Duration rollbackRetention;
  private final Clock clock;
  private final XaCounters counters;

  public Recovery(
      String nodeId,
      Map<String, Participant> participants,
      DecisionLog decisionLog,
      Predicate<GlobalTransactionId> inFlight,
      Duration presumeAbortAfter,
      Duration rollbackRetention,
      Clock clock,
      XaCounters counters) {
    this.nodeId = nodeId;
    this.participants = participants;
    this.decisionLog = decisionLog;
    this.inFlight = inFlight;
    this.presumeAbortAfter = presumeAbortAfter;
    this.rollbackRetention = rollbackRetention;
    this.clock = clock;
    this.counters = counters;
  }

  /** Runs one pass; a failure on one branch or participant never stops the others. */
  public RecoveryReport run() {
    Tally t = new Tally();
    // The log first: a branch of a commit decision read now was prepared before it was written.
    Map<GlobalTransactionId, DecisionRecord> decisions = new HashMap<>();
    for (DecisionRecord d : decisionLog.list(nodeId)) {
      decisions.put(d.global(), d);
    }
    Set<String> reachable = new HashSet<>();
    Set<GlobalTransactionId> stillPrepared = new HashSet<>();
    for (Participant p : participants.values()) {
      Listing listing;
      try {
        listing = p.withConnection(LIST_TIMEOUT, (c, r) -> p.dialect().listPrepared(c));
      } catch (SQLException | RuntimeException e) {
        t.unreachable.add(p.name() + ": " + e.getMessage());
        continue;
      }
      reachable.add(p.name());
      Instant now = clock.instant();
      for (ListedBranch b : listing.branches()) {
        Optional<TandemXid> xid = b.tandem().filter(x -> x.participant().equals(p.name()));
        if (b.tandem().isPresent() && xid.isEmpty()) {
          // Tandem's, but of a participant by another name on the same server: it recovers it.
          continue;
        }
        xid.ifPresent(x -> stillPrepared.add(x.global()));
        Duration age = b.preparedAt().map(at -> Duration.between(at, now)).orElse(Duration.ZERO);
        RecoveryPlanner.Action action =
            RecoveryPlanner.plan(
                xid,
                nodeId,
                xid.isPresent() && inFlight.test(xid.get().global()),
                xid.map(x -> decisions.get(x.global())).map(DecisionRecord::decision),
                age,
                presumeAbortAfter);
        apply(p, xid, action, t);
      }
    }
    forget(decisions, reachable, stillPrepared, t);
    RecoveryReport report =
        new RecoveryReport(
            t.committed,
            t.rolledBack,
            t.presumed,
            t.waiting,
            t.inFlight,
            t.otherNodes,
            t.foreign,
            t.forgotten,
            t.unreachable,
            t.heuristics,
            t.failures);
    if (!t.heuristics.isEmpty()) {
      log.error("XA recovery of node {} found heuristic outcomes: {}", nodeId, t.heuristics);
    }
    if (report.eventful()) {
      log.info("XA recovery of node {}: {}", nodeId, report);
    }
    return report;
  }

  private void apply(
      Participant p, Optional<TandemXid> xid, RecoveryPlanner.Action action, Tally t) {
    switch (action) {
      case LEAVE_FOREIGN -> t.foreign++;
      case LEAVE_OTHER_NODE -> t.otherNodes++;
      case LEAVE_IN_FLIGHT -> t.inFlight++;
      case WAIT -> t.waiting++;
      case COMMIT -> finish(p, xid.get(), true, t);
      case ROLLBACK -> finish(p, xid.get(), false, t);
      case PRESUME_ABORT -> {
        TandemXid x = xid.get();
        XaDecision holds =
            decisionLog.recordRollback(
                x.global(), List.of(participants.keySet().toArray(String[]::new)), "recovery");
        if (holds == XaDecision.COMMIT) {
          finish(p, x, true, t); // its coordinator decided meanwhile
        } else if (finish(p, x, false, t)) {
          t.presumed++;
          t.rolledBack--;
        }
      }
    }
  }

  /** Commits or rolls back one branch; true when it is done (or was done already). */
  private boolean finish(Participant p, TandemXid xid, boolean commit, Tally t) {
    try {
      return p.withConnection(
          LIST_TIMEOUT,
          (c, resource) -> {
            finishOn(resource, xid, commit, t);
            return true;
          });
    } catch (SQLException | RuntimeException e) {
      t.failures.add((commit ? "commit of " : "rollback of ") + xid + " failed: " + e.getMessage());
      return false;
    }
  }

  private void finishOn(XAResource resource, TandemXid xid, boolean commit, Tally t)
      throws SQLException {
    try {
      if (commit) {
        resource.commit(xid, false);
        t.committed++;
      } else {
        resource.rollback(xid);
        t.rolledBack++;
      }
    } catch (XAException e) {
      if (XaErrors.notFound(e)) {
        return; // finished between the listing and now (its coordinator, or another recovery)
      }
      // MariaDB answers XA_RBROLLBACK to the rollback of a prepared branch that wrote nothing.
      boolean consistent =
          (commit && e.errorCode == XAException.XA_HEURCOM)
              || (!commit && (e.errorCode == XAException.XA_HEURRB || XaErrors.votedNo(e)));
      if (consistent) {
        if (commit) {
          t.committed++;
        } else {
          t.rolledBack++;
        }
        return;
      }
      if (XaErrors.phaseTwoEvent(e) == io.tandem.xa.BranchEvent.NO_ANSWER) {
        throw new SQLException(XaErrors.describe(e), e);
      }
      String what =
          xid
              + ": decided "
              + (commit ? "COMMIT" : "ROLLBACK")
              + ", the participant answered "
              + XaErrors.describe(e);
      t.heuristics.add(what);
      counters.heuristic();
      decisionLog.noteHeuristic(xid.global(), "heuristic outcome: " + what);
    }
  }

  private void forget(
      Map<GlobalTransactionId, DecisionRecord> decisions,
      Set<String> reachable,
      Set<GlobalTransactionId> stillPrepared,
      Tally t) {
    Instant now = clock.instant();
    for (DecisionRecord d : decisions.values()) {
      if (d.heuristic().isPresent()) {
        continue; // kept for the operator
      }
      boolean forget =
          RecoveryPlanner.forget(
              d.decision(),
              d.decidedAt(),
              new LinkedHashSet<>(d.participants()),
              reachable,
              stillPrepared.contains(d.global()),
              now,
              rollbackRetention);
      if (forget) {
        decisionLog.forget(d.global(), d.decision());
        t.forgotten++;
      }
    }
  }

  private static final class Tally {
    int committed;
    int rolledBack;
    int presumed;
    int waiting;
    int inFlight;
    int otherNodes;
    int foreign;
    int forgotten;
    final List<String> unreachable = new ArrayList<>();
    final List<String> heuristics = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
  }
}
