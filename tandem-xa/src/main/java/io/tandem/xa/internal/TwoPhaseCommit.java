package io.tandem.xa.internal;

import io.tandem.core.FaultInjector;
import io.tandem.core.TandemException;
import io.tandem.xa.BranchState;
import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.XaDecision;
import io.tandem.xa.XaHeuristicException;
import io.tandem.xa.XaOutcome;
import io.tandem.xa.XaOutcomeUnknownException;
import io.tandem.xa.XaRollbackException;
import io.tandem.xa.XaTransaction;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transaction: opens branches as the work asks for them, then commits them by the {@link
 * CommitProtocol} — read-only branches and a sole writer in one phase; two or more writers prepared
 * in parallel, the decision logged, phase 2 retried until every branch answered or the timeout, the
 * decision forgotten. Used by the thread that runs the work.
 */
public final class TwoPhaseCommit implements XaTransaction {
  private static final Logger log = LoggerFactory.getLogger(TwoPhaseCommit.class);

  private static final String ONE_PHASE = "the one-phase commit of ";

  private final CoordinatorContext context;
  private final GlobalTransactionId id;
  private final Map<String, Branch> branches = new LinkedHashMap<>();
  private boolean ended;

  public TwoPhaseCommit(CoordinatorContext context, GlobalTransactionId id) {
    this.context = context;
    this.id = id;
  }

  @Override
  public GlobalTransactionId id() {
    return id;
  }

  @Override
  public Connection connection(String participant) {
    if (ended) {
      throw new IllegalStateException("transaction " + id + " has ended");
    }
    Branch b = branches.get(participant);
    if (b == null) {
      Participant p = context.participants().get(participant);
      if (p == null) {
        throw new IllegalArgumentException(
            "no participant '"
                + participant
                + "' in this coordinator; configured: "
                + context.participants().keySet());
      }
      b = Branch.start(p, new TandemXid(id, participant), context.settings().connectionTimeout());
      branches.put(participant, b);
    }
    return b.connection();
  }

  /**
   * Commits every branch. Returns normally when the transaction committed (or commit was decided
   * and a branch is left to recovery: {@link XaOutcome#COMMITTED_PENDING}).
   *
   * @throws XaRollbackException when it rolled back
   * @throws XaOutcomeUnknownException when the decision's fate is unknown (recovery decides)
   * @throws XaHeuristicException when someone else decided a branch
   */
  public XaOutcome commit() {
    ended = true;
    List<Branch> all = new ArrayList<>(branches.values());
    try {
      if (all.isEmpty()) {
        return XaOutcome.COMMITTED;
      }
      parallel(all, Branch::check);
      List<Branch> readOnly = all.stream().filter(b -> !b.wrote()).toList();
      List<Branch> writers = all.stream().filter(Branch::wrote).toList();
      CommitProtocol.Path path = CommitProtocol.path(all.stream().map(Branch::wrote).toList());
      if (path == CommitProtocol.Path.TWO_PHASE) {
        parallel(readOnly, Branch::commitOnePhase);
        return twoPhase(writers);
      }
      Branch writer = writers.isEmpty() ? all.get(0) : writers.get(0);
      writer.commitOnePhase();
      parallel(all.stream().filter(b -> b != writer).toList(), Branch::commitOnePhase);
      XaOutcome outcome = CommitProtocol.onePhaseOutcome(writer.state());
      context.counters().ended(outcome, true);
      if (outcome == XaOutcome.COMMITTED) {
        writer.wakeOutboxRelays(context.settings().connectionTimeout());
        return outcome;
      }
      throw failure(outcome, ONE_PHASE + writer.xid(), writer.failure());
    } finally {
      all.forEach(Branch::release);
      context.inFlight().remove(id);
    }
  }

  private XaOutcome twoPhase(List<Branch> writers) {
    parallel(writers, Branch::prepare);
    context.faults().reached(FaultInjector.XA_AFTER_PREPARE);
    XaDecision decision = CommitProtocol.afterPrepare(states(writers));
    if (decision == XaDecision.ROLLBACK) {
      Branch refused =
          writers.stream().filter(b -> b.state() != BranchState.PREPARED).findFirst().orElseThrow();
      rollbackAll(writers);
      return finish(
          writers,
          XaDecision.ROLLBACK,
          false,
          refused.failure(),
          "branch " + refused.xid() + " did not prepare");
    }
    List<String> names = writers.stream().map(b -> b.participant().name()).toList();
    CommitProtocol.LogResult logged = context.decisionLog().recordCommit(id, names);
    return switch (CommitProtocol.afterLog(logged)) {
      case COMMIT_ALL -> {
        context.faults().reached(FaultInjector.XA_AFTER_DECISION);
        phaseTwo(writers);
        yield finish(writers, XaDecision.COMMIT, false, null, "phase 2");
      }
      case ROLLBACK_ALL -> {
        rollbackAll(writers);
        yield finish(
            writers,
            XaDecision.ROLLBACK,
            false,
            null,
            logged == CommitProtocol.LogResult.ROLLBACK_RECORDED
                ? "recovery had presumed the transaction aborted before its decision was logged"
                : "the decision log refused the commit decision");
      }
      case LEAVE_TO_RECOVERY ->
          finish(
              writers, XaDecision.COMMIT, true, null, "writing the commit decision got no answer");
    };
  }

  /**
   * Commits every branch at once. Where fault points are configured (drills), the first branch
   * commits alone and the point {@code xa.mid-phase-two} follows it, so that a fault there really
   * leaves the transaction half committed.
   */
  private void phaseTwo(List<Branch> writers) {
    Duration timeout = context.settings().connectionTimeout();
    if (context.faults() == FaultInjector.NONE) {
      parallel(writers, b -> b.commit(false, timeout));
    } else {
      writers.get(0).commit(false, timeout);
      context.faults().reached(FaultInjector.XA_MID_PHASE_TWO);
      parallel(writers.subList(1, writers.size()), b -> b.commit(false, timeout));
    }
    long deadline = System.nanoTime() + context.settings().phaseTwoTimeout().toNanos();
    int failures = 0;
    while (CommitProtocol.retryPhaseTwo(states(writers)) && System.nanoTime() < deadline) {
      failures++;
      sleep(context.settings().phaseTwoRetry().delayAfter(failures));
      parallel(
          writers.stream().filter(b -> b.state() == BranchState.IN_DOUBT).toList(),
          b -> b.commit(true, timeout));
    }
  }

  private void rollbackAll(List<Branch> list) {
    Duration timeout = context.settings().connectionTimeout();
    parallel(list.stream().filter(b -> !b.state().isTerminal()).toList(), b -> b.rollback(timeout));
  }

  /** Rolls every branch back: the work failed, or the transaction is abandoned. */
  public void rollback() {
    ended = true;
    List<Branch> all = new ArrayList<>(branches.values());
    try {
      rollbackAll(all);
    } finally {
      all.forEach(Branch::release);
      context.inFlight().remove(id);
    }
  }

  private XaOutcome finish(
      List<Branch> writers, XaDecision decision, boolean logUnknown, Exception cause, String what) {
    XaOutcome outcome = CommitProtocol.twoPhaseOutcome(decision, logUnknown, states(writers));
    context.counters().ended(outcome, false);
    switch (outcome) {
      case COMMITTED -> {
        context.decisionLog().forget(id, XaDecision.COMMIT);
        writers.forEach(b -> b.wakeOutboxRelays(context.settings().connectionTimeout()));
        return outcome;
      }
      case COMMITTED_PENDING -> {
        log.warn(
            "transaction {} is committed, but {} did not answer phase 2 within {}: recovery"
                + " commits {}",
            id,
            describe(writers),
            context.settings().phaseTwoTimeout(),
            writers.size() == 1 ? "it" : "them");
        writers.forEach(b -> b.wakeOutboxRelays(context.settings().connectionTimeout()));
        return outcome;
      }
      case HEURISTIC -> {
        context.counters().heuristic();
        String note = "heuristic outcome: " + describe(writers);
        context.decisionLog().noteHeuristic(id, note);
        log.error("transaction {}: {} (decided {})", id, note, decision);
        throw failure(outcome, what, firstFailure(writers, cause));
      }
      default -> throw failure(outcome, what, firstFailure(writers, cause));
    }
  }

  private RuntimeException failure(XaOutcome outcome, String what, Exception cause) {
    List<String> described = branches.values().stream().map(Branch::toString).toList();
    String reason = cause == null ? "" : ": " + messageOf(cause);
    return switch (outcome) {
      case ROLLED_BACK ->
          new XaRollbackException("rolled back, " + what + reason, id, described, cause);
      case UNKNOWN ->
          new XaOutcomeUnknownException(
              "outcome unknown, "
                  + what
                  + reason
                  + (what.startsWith(ONE_PHASE)
                      ? "; a one-phase commit leaves nothing prepared: look at the participant's"
                          + " data to tell whether it committed"
                      : "; recovery decides from the decision log (committed if the decision"
                          + " became durable, else rolled back)"),
              id,
              described,
              cause);
      case HEURISTIC ->
          new XaHeuristicException(
              "a branch was decided by someone else (" + what + ")" + reason, id, described, cause);
      default -> new IllegalStateException("not a failure: " + outcome);
    };
  }

  /** The error's message and, when it differs, its root cause's (the database's own words). */
  private static String messageOf(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e || root.getMessage() == null
        ? String.valueOf(e.getMessage())
        : e.getMessage() + " (" + root.getMessage() + ")";
  }

  private static Exception firstFailure(List<Branch> list, Exception fallback) {
    if (fallback != null) {
      return fallback;
    }
    return list.stream().map(Branch::failure).filter(f -> f != null).findFirst().orElse(null);
  }

  private static String describe(List<Branch> list) {
    return list.stream().map(Branch::toString).toList().toString();
  }

  private static List<BranchState> states(List<Branch> list) {
    return list.stream().map(Branch::state).toList();
  }

  /** Runs {@code op} on every branch: the first on this thread, the others on the executor. */
  private void parallel(List<Branch> list, Consumer<Branch> op) {
    if (list.isEmpty()) {
      return;
    }
    List<CompletableFuture<Void>> others = new ArrayList<>();
    for (Branch b : list.subList(1, list.size())) {
      others.add(CompletableFuture.runAsync(() -> op.accept(b), context.executor()));
    }
    RuntimeException first = null;
    try {
      op.accept(list.get(0));
    } catch (RuntimeException e) {
      first = e;
    }
    for (CompletableFuture<Void> f : others) {
      try {
        f.join();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("interrupted while retrying phase 2", e);
    }
  }
}
