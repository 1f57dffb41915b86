package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.Tracing;
import io.tandem.inbox.Handlers.Handler;
import io.tandem.inbox.internal.AggregateKey;
import io.tandem.inbox.internal.Failures;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the handlers of a batch's new events, aggregate after aggregate in version order;
 * consecutive events of one batch handler ({@link InboxBatchWork}) go to it in one call. Without
 * savepoints (the first run of a batch: a savepoint is a round trip, and on PostgreSQL a
 * subtransaction) a handler that fails ends the run with {@link Redo}: the caller rolls the
 * transaction back and runs the batch again with savepoints. With savepoints each call has its own;
 * a handler that fails is rolled back to it, and it and the later events of its aggregate are
 * deferred to the one-message path. Thread-safe.
 */
final class BatchHandlers {
  private static final Logger LOG = LoggerFactory.getLogger(BatchHandlers.class);

  /** A handler failed in a run without savepoints: roll back, run the batch with them. */
  static final class Redo extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Redo(Throwable failure) {
      super("a handler failed in a batch run without savepoints", failure, false, false);
    }
  }

  private final String consumer;
  private final Handlers handlers;
  private final ConsumerMetrics metrics;
  private final Tracing tracing;

  BatchHandlers(ConsumerParts parts) {
    this.consumer = parts.consumer();
    this.handlers = parts.handlers();
    this.metrics = parts.metrics();
    this.tracing = parts.tracing();
  }

  /**
   * Runs the handlers of {@code handled}, with a savepoint per call when {@code savepoints}.
   *
   * @throws Redo without savepoints, when a handler failed: nothing may commit
   */
  void run(Connection conn, List<BatchEntry> handled, boolean savepoints) throws SQLException {
    Set<AggregateKey> broken = new HashSet<>();
    int i = 0;
    while (i < handled.size()) {
      BatchEntry e = handled.get(i);
      Handler handler = handlers.handlerFor(e.event);
      if (broken.contains(e.key)) {
        e.defer();
        i++;
      } else if (handler == null) {
        try {
          e.outcome = handlers.unsupported(e.event);
        } catch (Refused refused) {
          e.refuse(refused);
          broken.add(e.key);
        }
        i++;
      } else if (handler.batch() == null) {
        runOne(conn, e, handler, broken, savepoints);
        i++;
      } else {
        List<BatchEntry> run = new ArrayList<>();
        while (i < handled.size()
            && !broken.contains(handled.get(i).key)
            && handlers.handlerFor(handled.get(i).event) == handler) {
          run.add(handled.get(i++));
        }
        // A batch call that failed in the run without savepoints fails again: one by one at once.
        boolean failedBefore = run.stream().anyMatch(n -> n.batchCallFailed);
        if (failedBefore || !runBatch(conn, run, handler, savepoints)) {
          for (BatchEntry n : run) {
            if (broken.contains(n.key)) {
              n.defer();
            } else {
              runOne(conn, n, handler, broken, true);
            }
          }
        }
      }
    }
  }

  /** One call of a batch handler for {@code run}; false when it failed and was rolled back. */
  private boolean runBatch(
      Connection conn, List<BatchEntry> run, Handler handler, boolean savepoints)
      throws SQLException {
    Savepoint savepoint = savepoints ? conn.setSavepoint() : null;
    try {
      List<Event> events = new ArrayList<>(run.size());
      run.forEach(e -> events.add(e.event));
      Handlers.callBatch(handler, conn, events);
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (RuntimeException failure) {
      rethrowIfTransactionLost(failure);
      if (savepoint == null) {
        run.forEach(e -> e.batchCallFailed = true);
        throw new Redo(failure);
      }
      conn.rollback(savepoint);
      LOG.debug(
          "consumer {}: batch handler failed on {} events; applying them one by one",
          consumer,
          run.size(),
          failure);
      return false;
    }
    run.forEach(e -> e.outcome = Outcome.APPLIED);
    return true;
  }

  /** One event's handler (behind its savepoint when asked), in the event's consumer span. */
  private void runOne(
      Connection conn, BatchEntry e, Handler handler, Set<AggregateKey> broken, boolean savepoints)
      throws SQLException {
    Savepoint savepoint = savepoints ? conn.setSavepoint() : null;
    try (Tracing.Span span =
        tracing.startConsumer(e.event, consumer, e.decoded.message().origin())) {
      try {
        Handlers.call(handler, conn, e.event);
        e.outcome = Outcome.APPLIED;
        span.outcome(Outcome.APPLIED.name());
        return;
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (Refused refused) {
        span.outcome("FAILED");
        redoWithout(savepoint, refused);
        conn.rollback(savepoint);
        e.refuse(refused);
        span.outcome(Outcome.DEAD_LETTERED.name());
      } catch (RuntimeException failure) {
        rethrowIfTransactionLost(failure);
        span.outcome("FAILED");
        redoWithout(savepoint, failure);
        conn.rollback(savepoint);
        e.defer();
        e.failedAttempts = 1;
        metrics.failedAttempts.increment();
        LOG.warn(
            "consumer {}: handler failed on {} in a batch (attempt 1); it is retried alone",
            consumer,
            e.event.eventId(),
            failure.getCause());
      }
    }
    broken.add(e.key);
  }

  private static void redoWithout(Savepoint savepoint, RuntimeException failure) {
    if (savepoint == null) {
      throw new Redo(failure);
    }
  }

  /**
   * A deadlock or a lost connection ends the whole transaction (MariaDB rolls it back on a
   * deadlock): the batch is retried, not the handler blamed.
   */
  private static void rethrowIfTransactionLost(RuntimeException failure) {
    if (Failures.transientConflict(failure) || Failures.databaseUnavailable(failure)) {
      throw failure;
    }
  }
}
