package io.tandem.xa.internal;

import io.tandem.xa.BranchEvent;
import io.tandem.xa.BranchState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One branch of a transaction on one participant: its xid, its connection while the transaction
 * runs, and its {@link BranchState}. Each operation turns the driver's answer into a {@link
 * BranchEvent} and moves the state through the transition table. Used by one thread at a time.
 */
final class Branch {
  private static final Logger log = LoggerFactory.getLogger(Branch.class);

  private final Participant participant;
  private final TandemXid xid;
  private PooledXaConnection pooled;
  private Connection handle;
  private BranchState state = BranchState.ACTIVE;
  private boolean wrote = true;
  private boolean outboxAppended;
  private Exception failure;

  private Branch(Participant participant, TandemXid xid) {
    this.participant = participant;
    this.xid = xid;
  }

  /** Starts a branch on a pooled connection of {@code participant}. */
  static Branch start(Participant participant, TandemXid xid, Duration connectionTimeout) {
    Branch b = new Branch(participant, xid);
    b.pooled = participant.borrow(connectionTimeout);
    try {
      b.pooled.resource().start(xid, XAResource.TMNOFLAGS);
      b.handle = BranchConnection.wrap(b.pooled.connection(), xid);
      return b;
    } catch (XAException | SQLException e) {
      participant.discard(b.pooled);
      throw new io.tandem.core.TandemException(
          "cannot start the branch "
              + xid
              + ": "
              + (e instanceof XAException x ? XaErrors.describe(x) : e.getMessage()),
          e);
    }
  }

  Participant participant() {
    return participant;
  }

  TandemXid xid() {
    return xid;
  }

  Connection connection() {
    return handle;
  }

  BranchState state() {
    return state;
  }

  boolean wrote() {
    return wrote;
  }

  boolean outboxAppended() {
    return outboxAppended;
  }

  /** The last error the participant answered with, for messages; null when none. */
  Exception failure() {
    return failure;
  }

  /** Keeps the first error: a later one (the rollback after a failed prepare) hides the cause. */
  private void fail(Exception e) {
    if (failure == null) {
      failure = e;
    }
  }

  private void on(BranchEvent event) {
    state = state.next(event);
  }

  /**
   * Asks the database whether the branch wrote and appended to the outbox (where it can tell
   * cheaply). On any doubt the branch counts as writing.
   */
  void check() {
    var sql = participant.dialect().branchCheck();
    if (sql.isEmpty()) {
      return;
    }
    try (Statement s = handle.createStatement();
        ResultSet rs = s.executeQuery(sql.get())) {
      rs.next();
      wrote = rs.getBoolean("wrote");
      outboxAppended = rs.getBoolean("outbox_appended");
    } catch (SQLException e) {
      wrote = true; // its prepare will tell what is wrong
      fail(e);
    }
  }

  /** Phase 1: end and prepare. */
  void prepare() {
    try {
      XAResource r = pooled.resource();
      r.end(xid, XAResource.TMSUCCESS);
      int vote = r.prepare(xid);
      // XA_RDONLY: the participant finished the branch itself; nothing to commit.
      on(vote == XAResource.XA_RDONLY ? BranchEvent.COMMITTED : BranchEvent.PREPARED);
    } catch (XAException e) {
      fail(e);
      on(XaErrors.votedNo(e) ? BranchEvent.ROLLED_BACK : BranchEvent.NO_ANSWER);
    } catch (RuntimeException e) {
      fail(e);
      on(BranchEvent.NO_ANSWER);
    }
  }

  /** Commits in one phase: the transaction's only writer, or a branch that wrote nothing. */
  void commitOnePhase() {
    try {
      XAResource r = pooled.resource();
      r.end(xid, XAResource.TMSUCCESS);
      r.commit(xid, true);
      on(BranchEvent.COMMITTED);
    } catch (XAException e) {
      fail(e);
      on(XaErrors.votedNo(e) ? BranchEvent.ROLLED_BACK : BranchEvent.NO_ANSWER);
    } catch (RuntimeException e) {
      fail(e);
      on(BranchEvent.NO_ANSWER);
    }
  }

  /**
   * Phase 2 commit, on the branch's own connection or, after a failure ({@code retry}), on a fresh
   * one. XAER_NOTA on the first attempt means someone else finished the prepared branch (a
   * heuristic outcome); on a retry, that the earlier attempt committed before its answer was lost.
   */
  void commit(boolean retry, Duration connectionTimeout) {
    apply(retry, connectionTimeout, true);
  }

  /** Rolls back, in phase 1 or 2; XAER_NOTA means there is nothing left to roll back. */
  void rollback(Duration connectionTimeout) {
    if (state == BranchState.ACTIVE && pooled != null) {
      try {
        pooled.resource().end(xid, XAResource.TMFAIL);
      } catch (XAException | RuntimeException e) {
        // already ended or the connection broke: the rollback below (or the database) ends it
      }
    }
    apply(state == BranchState.IN_DOUBT, connectionTimeout, false);
  }

  private void apply(boolean freshConnection, Duration connectionTimeout, boolean commit) {
    if (freshConnection || pooled == null) {
      release();
      try {
        participant.withConnection(
            connectionTimeout,
            (c, resource) -> {
              finish(resource, commit, freshConnection);
              return null;
            });
      } catch (SQLException | RuntimeException e) {
        fail(e);
        on(BranchEvent.NO_ANSWER);
      }
    } else {
      finish(pooled.resource(), commit, false);
    }
  }

  private void finish(XAResource resource, boolean commit, boolean retry) {
    try {
      if (commit) {
        resource.commit(xid, false);
        on(BranchEvent.COMMITTED);
      } else {
        resource.rollback(xid);
        on(BranchEvent.ROLLED_BACK);
      }
    } catch (XAException e) {
      fail(e);
      if (XaErrors.notFound(e)) {
        if (!commit) {
          on(BranchEvent.ROLLED_BACK); // never prepared, or rolled back already
        } else {
          on(retry ? BranchEvent.COMMITTED : BranchEvent.HEURISTIC);
        }
        return;
      }
      if (commit && e.errorCode == XAException.XA_HEURCOM) {
        forgetAtParticipant(resource);
        on(BranchEvent.COMMITTED); // decided as we decided
        return;
      }
      if (!commit && e.errorCode == XAException.XA_HEURRB) {
        forgetAtParticipant(resource);
        on(BranchEvent.ROLLED_BACK);
        return;
      }
      BranchEvent event = XaErrors.phaseTwoEvent(e);
      if (event == BranchEvent.ROLLED_BACK && commit) {
        event = BranchEvent.HEURISTIC; // decided commit, but the participant rolled it back
      }
      if (state == BranchState.ACTIVE && event == BranchEvent.HEURISTIC) {
        event = BranchEvent.NO_ANSWER;
      }
      on(event);
      if (event == BranchEvent.NO_ANSWER && pooled != null) {
        pooled.markBroken();
      }
    } catch (RuntimeException e) {
      fail(e);
      on(BranchEvent.NO_ANSWER);
      if (pooled != null) {
        pooled.markBroken();
      }
    }
  }

  private void forgetAtParticipant(XAResource resource) {
    try {
      resource.forget(xid);
    } catch (XAException e) {
      log.debug("forget of {} failed: {}", xid, XaErrors.describe(e));
    }
  }

  /** Gives the connection back: reused after a clean end, closed when its state is unknown. */
  void release() {
    if (pooled == null) {
      return;
    }
    try {
      if (handle != null) {
        BranchConnection.close(handle);
      }
    } catch (SQLException e) {
      pooled.markBroken();
    }
    if (state == BranchState.ACTIVE || state == BranchState.IN_DOUBT) {
      participant.discard(pooled);
    } else {
      participant.release(pooled);
    }
    pooled = null;
    handle = null;
  }

  /** Runs Tandem's wake-up of the outbox relays after a commit that appended to the outbox. */
  void wakeOutboxRelays(Duration connectionTimeout) {
    var sql = participant.dialect().wakeOutboxRelays();
    if (sql.isEmpty() || !outboxAppended || state != BranchState.COMMITTED) {
      return;
    }
    try {
      participant.withConnection(
          connectionTimeout,
          (c, resource) -> {
            try (Statement s = c.createStatement()) {
              s.execute(sql.get());
            }
            return null;
          });
    } catch (SQLException | RuntimeException e) {
      log.debug("waking the outbox relays after {} failed (they poll): {}", xid, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return xid + " " + state;
  }
}
