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
 * Runs the handlers of a batch's new events, aggregate after aggregate in version order, each call
 * behind its own savepoint; consecutive events of one batch handler ({@link InboxBatchWork}) go to
 * it in one call. A handler that fails is rolled back to its savepoint, and it and the later events
 * of its aggregate are deferred to the one-message path. Thread-safe.
 */
final class BatchHandlers {
  private static final Logger LOG = LoggerFactory.getLogger(BatchHandlers.class);

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

  void run(Connection conn, List<BatchEntry> handled) throws SQLException {
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
        runOne(conn, e, handler, broken);
        i++;
      } else {
        List<BatchEntry> run = new ArrayList<>();
        while (i < handled.size()
            && !broken.contains(handled.get(i).key)
            && handlers.handlerFor(handled.get(i).event) == handler) {
          run.add(handled.get(i++));
        }
        if (!runBatch(conn, run, handler)) {
          for (BatchEntry n : run) {
            if (broken.contains(n.key)) {
              n.defer();
            } else {
              runOne(conn, n, handler, broken);
            }
          }
        }
      }
    }
  }

  /** One call of a batch handler for {@code run}; false when it failed and was rolled back. */
  private boolean runBatch(Connection conn, List<BatchEntry> run, Handler handler)
      throws SQLException {
    Savepoint savepoint = conn.setSavepoint();
    try {
      List<Event> events = new ArrayList<>(run.size());
      run.forEach(e -> events.add(e.event));
      Handlers.callBatch(handler, conn, events);
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (RuntimeException failure) {
      rethrowIfTransactionLost(failure);
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

  /** One event's handler behind its savepoint, in the event's consumer span. */
  private void runOne(Connection conn, BatchEntry e, Handler handler, Set<AggregateKey> broken)
      throws SQLException {
    Savepoint savepoint = conn.setSavepoint();
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
        conn.rollback(savepoint);
        e.refuse(refused);
        span.outcome(Outcome.DEAD_LETTERED.name());
      } catch (RuntimeException failure) {
        rethrowIfTransactionLost(failure);
        conn.rollback(savepoint);
        e.defer();
        e.failedAttempts = 1;
        metrics.failedAttempts.increment();
        span.outcome("FAILED");
        LOG.warn(
            "consumer {}: handler failed on {} in a batch (attempt 1); it is retried alone",
            consumer,
            e.event.eventId(),
            failure.getCause());
      }
    }
    broken.add(e.key);
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
