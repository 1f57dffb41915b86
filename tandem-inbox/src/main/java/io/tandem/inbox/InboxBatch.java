package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.Tracing;
import io.tandem.inbox.InboxProcessor.Decoded;
import io.tandem.inbox.InboxProcessor.Handler;
import io.tandem.inbox.InboxProcessor.Refused;
import io.tandem.inbox.internal.BatchStore;
import io.tandem.inbox.internal.BatchStore.AggregateKey;
import io.tandem.inbox.internal.Failures;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies several delivered messages of one consumer in one local transaction, with the guarantees
 * of the one-message path ({@link InboxProcessor}) and one commit for all of them:
 *
 * <ol>
 *   <li>The positions of the batch's aggregates are created where missing and locked, in key order,
 *       in two round trips ({@link BatchStore#lockPositions}).
 *   <li>Each aggregate's events are taken in version order: a version at or below the locked
 *       position is decided as on the one-message path (duplicate, or a version conflict that is
 *       dead-lettered); the next version is to be applied; a version beyond a gap is parked. A
 *       second copy of an event id in the batch follows its first copy.
 *   <li>The inbox records of the events to apply are inserted in one multi-row statement that says
 *       which ids are new. An id that is not new although its version is (an event re-sent under a
 *       new version) sends the whole batch down the one-message path, which knows that case.
 *   <li>Handlers run aggregate after aggregate, in version order; consecutive events of one batch
 *       handler ({@link InboxBatchWork}) go to it in one call. Each call runs behind a savepoint: a
 *       handler that fails is rolled back to it, its inbox record removed, and it and the later
 *       events of its aggregate in the batch are left out — after the commit they take the
 *       one-message path (retries, then the dead letter), in order, alone.
 *   <li>The positions move in one JDBC batch; one statement tells which aggregates have their next
 *       version parked; the transaction commits.
 * </ol>
 *
 * <p>Only then is each message acknowledged (after the fault point {@link
 * FaultInjector#CONSUMER_AFTER_COMMIT}). A failure of the transaction itself retries it when it is
 * a deadlock or the database is unreachable, and otherwise processes the messages one by one.
 */
final class InboxBatch {
  private static final Logger LOG = LoggerFactory.getLogger(InboxBatch.class);

  /** One decoded message of the batch and what the transaction decided for it. */
  private static final class Entry {
    final int index;
    final Decoded decoded;
    final Event event;
    final AggregateKey key;
    Outcome outcome; // final outcome when committed; null while undecided or deferred
    boolean deferred; // left to the one-message path after the commit
    Refused refused; // deferred with a dead-letter verdict
    int failedAttempts;
    Entry copyOf; // a later copy of an event id in the batch

    Entry(int index, Decoded decoded) {
      this.index = index;
      this.decoded = decoded;
      this.event = decoded.event();
      this.key = new AggregateKey(event.aggregateType(), event.aggregateId());
    }

    void reset() {
      outcome = null;
      deferred = false;
      refused = null;
      failedAttempts = 0;
    }

    void defer() {
      outcome = null;
      deferred = true;
    }
  }

  /** The transaction's result: the aggregates whose next version waits in the parking. */
  private record Applied(Set<AggregateKey> successorParked) {}

  /** Sends the batch down the one-message path (a case only that path knows). */
  private static final class OneByOne extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OneByOne(String message) {
      super(message, null, false, false);
    }
  }

  private final InboxProcessor p;
  private final BatchStore store;

  InboxBatch(InboxProcessor processor, BatchStore store) {
    this.p = processor;
    this.store = store;
  }

  List<Outcome> process(List<Decoded> batch, BooleanSupplier stopping) {
    Outcome[] outcomes = new Outcome[batch.size()];
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      Decoded d = batch.get(i);
      if (d.event() == null) {
        outcomes[i] = p.process(d, stopping); // dead-lettered as not a Tandem event
      } else {
        entries.add(new Entry(i, d));
      }
    }
    Applied applied = transact(entries, stopping);
    if (applied == null) {
      for (Entry e : entries) {
        if (outcomes[e.index] == null) {
          outcomes[e.index] =
              stopping.getAsBoolean() ? Outcome.ABANDONED : p.process(e.decoded, stopping);
        }
      }
      return List.of(outcomes);
    }
    // Committed: settle what was decided, then the left-out ones alone, in order. A failure that
    // escapes one message's settling (an Error from the broker client) is that message's alone.
    Unsettled unsettled = new Unsettled(outcomes);
    for (Entry e : entries) {
      if (!e.deferred) {
        try {
          p.settle(e.decoded.message(), e.event, e.outcome);
        } catch (FaultInjector.SimulatedCrash crash) {
          throw crash;
        } catch (RuntimeException | Error failure) {
          unsettled.add(e.index, failure);
          continue;
        }
        p.count(e.outcome);
        outcomes[e.index] = e.outcome;
      }
    }
    for (Entry e : entries) {
      if (!e.deferred) {
        continue;
      }
      try {
        outcomes[e.index] = alone(e, stopping);
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (RuntimeException | Error failure) {
        unsettled.add(e.index, failure);
      }
    }
    for (AggregateKey k : applied.successorParked()) {
      p.drainParked(k.type(), k.id(), stopping);
    }
    if (!unsettled.indices.isEmpty()) {
      throw unsettled;
    }
    return List.of(outcomes);
  }

  /**
   * Messages of a committed batch whose processing failed outside the handlers after the commit;
   * the others are settled, with the outcomes given. The caller deals with these alone.
   */
  static final class Unsettled extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient Outcome[] outcomes;
    final List<Integer> indices = new ArrayList<>();

    /** The failure of each message of {@link #indices}, in the same order. */
    final transient List<Throwable> failures = new ArrayList<>();

    Unsettled(Outcome[] outcomes) {
      super("messages of a committed batch could not be settled", null, false, false);
      this.outcomes = outcomes;
    }

    void add(int index, Throwable failure) {
      indices.add(index);
      failures.add(failure);
    }
  }

  private Outcome alone(Entry e, BooleanSupplier stopping) {
    if (stopping.getAsBoolean()) {
      return Outcome.ABANDONED;
    } else if (e.refused != null) {
      return p.deadLetter(
          e.decoded.message(),
          e.event,
          e.refused.reason,
          e.refused.getMessage(),
          e.failedAttempts + 1,
          stopping);
    } else {
      return p.process(e.decoded, stopping, true, e.failedAttempts);
    }
  }

  /**
   * Runs the batch's transaction until it commits; null when the messages are to go one by one (or
   * the processor is stopping).
   */
  private Applied transact(List<Entry> entries, BooleanSupplier stopping) {
    if (entries.isEmpty()) {
      return null;
    }
    int conflicts = 0;
    int unavailable = 0;
    while (true) {
      try {
        return p.tx(conn -> apply(conn, entries));
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (OneByOne reason) {
        LOG.debug("consumer {}: batch of {} one by one: {}", p.consumer(), entries.size(), reason);
        return null;
      } catch (SQLException | RuntimeException | Error failure) {
        if (Failures.transientConflict(failure)
            && conflicts < InboxProcessor.MAX_CONFLICT_RETRIES) {
          conflicts++;
          if (!InboxProcessor.pause(
              Duration.ofMillis(ThreadLocalRandom.current().nextLong(5, 50L * conflicts)),
              stopping)) {
            return null;
          }
          continue;
        }
        if (Failures.databaseUnavailable(failure)) {
          unavailable++;
          LOG.warn(
              "consumer {}: database unavailable while applying a batch of {} ({}); waiting",
              p.consumer(),
              entries.size(),
              Failures.describe(failure));
          if (!InboxProcessor.pause(InboxProcessor.unavailableDelay(unavailable), stopping)) {
            return null;
          }
          continue;
        }
        LOG.warn(
            "consumer {}: the batch transaction failed ({}); applying its {} messages one by one",
            p.consumer(),
            Failures.describe(failure),
            entries.size());
        return null;
      }
    }
  }

  private Applied apply(Connection conn, List<Entry> entries) throws SQLException {
    Map<UUID, Entry> firsts = new HashMap<>();
    Map<AggregateKey, List<Entry>> byAggregate = new LinkedHashMap<>();
    for (Entry e : entries) {
      e.reset();
      Entry first = firsts.putIfAbsent(e.event.eventId(), e);
      e.copyOf = first;
      if (first == null) {
        byAggregate.computeIfAbsent(e.key, k -> new ArrayList<>()).add(e);
      }
    }
    List<Entry> toApply = new ArrayList<>();
    Map<AggregateKey, Long> positions = Map.of();
    if (p.ordered()) {
      Map<AggregateKey, Long> initial = new HashMap<>();
      for (Map.Entry<AggregateKey, List<Entry>> a : byAggregate.entrySet()) {
        a.getValue().sort(Comparator.comparingLong(e -> e.event.aggregateVersion()));
        long lowest = a.getValue().get(0).event.aggregateVersion();
        initial.put(a.getKey(), p.startAtFirstSeen() ? lowest - 1 : 0);
      }
      positions = store.lockPositions(conn, p.consumer(), initial);
      for (Map.Entry<AggregateKey, List<Entry>> a : byAggregate.entrySet()) {
        long locked = positions.get(a.getKey());
        long next = locked;
        for (Entry e : a.getValue()) {
          long v = e.event.aggregateVersion();
          if (v <= locked) {
            try {
              e.outcome = p.atOrBelowPosition(conn, e.event, locked);
            } catch (Refused refused) {
              e.defer();
              e.refused = refused;
            }
          } else if (v == next + 1) {
            toApply.add(e);
            next = v;
          } else if (v <= next) {
            e.defer(); // another event id with a version planned here: the single path decides
          } else {
            p.store.park(conn, p.consumer(), e.event, e.decoded.message().origin());
            e.outcome = Outcome.PARKED;
          }
        }
      }
    } else {
      byAggregate.values().forEach(toApply::addAll);
    }
    Set<UUID> fresh = store.recordProcessed(conn, p.consumer(), events(toApply));
    List<Entry> handled = new ArrayList<>();
    for (Entry e : toApply) {
      if (fresh.contains(e.event.eventId())) {
        handled.add(e);
      } else if (p.ordered()) {
        throw new OneByOne(
            "event " + e.event.eventId() + " was processed before at another version");
      } else {
        e.outcome = Outcome.DUPLICATE;
      }
    }
    runHandlers(conn, handled);
    List<UUID> forget = new ArrayList<>();
    Map<AggregateKey, Long> moved = new HashMap<>();
    for (Entry e : handled) {
      if (e.deferred) {
        forget.add(e.event.eventId());
      } else if (p.ordered()) {
        moved.merge(e.key, e.event.aggregateVersion(), Math::max);
      }
    }
    store.forget(conn, p.consumer(), forget);
    Set<AggregateKey> successorParked = Set.of();
    if (p.ordered()) {
      store.updatePositions(conn, p.consumer(), moved);
      successorParked = store.successorsParked(conn, p.consumer(), moved);
    }
    for (Entry e : entries) {
      if (e.copyOf != null) {
        if (e.copyOf.deferred) {
          e.defer();
        } else {
          e.outcome = Outcome.DUPLICATE;
        }
      }
    }
    return new Applied(successorParked);
  }

  /** Runs the handlers of the new events in order, each call behind its own savepoint. */
  private void runHandlers(Connection conn, List<Entry> handled) throws SQLException {
    Set<AggregateKey> broken = new HashSet<>();
    int i = 0;
    while (i < handled.size()) {
      Entry e = handled.get(i);
      if (broken.contains(e.key)) {
        e.defer();
        i++;
        continue;
      }
      Handler handler = p.handlerFor(e.event);
      if (handler == null) {
        try {
          e.outcome = p.unsupported(e.event);
        } catch (Refused refused) {
          e.defer();
          e.refused = refused;
          broken.add(e.key);
        }
        i++;
        continue;
      }
      if (handler.batch() == null) {
        runOne(conn, e, handler, broken);
        i++;
        continue;
      }
      List<Entry> run = new ArrayList<>();
      while (i < handled.size()) {
        Entry n = handled.get(i);
        if (broken.contains(n.key) || p.handlerFor(n.event) != handler) {
          break;
        }
        run.add(n);
        i++;
      }
      if (!runBatch(conn, run, handler)) {
        for (Entry n : run) {
          if (broken.contains(n.key)) {
            n.defer();
          } else {
            runOne(conn, n, handler, broken);
          }
        }
      }
    }
  }

  /** One call of a batch handler for {@code run}; false when it failed and was rolled back. */
  private boolean runBatch(Connection conn, List<Entry> run, Handler handler) throws SQLException {
    Savepoint savepoint = conn.setSavepoint();
    try {
      InboxProcessor.callBatch(handler, conn, events(run));
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (RuntimeException | Error failure) {
      rethrowIfTransactionLost(failure);
      conn.rollback(savepoint);
      LOG.debug(
          "consumer {}: batch handler failed on {} events; applying them one by one",
          p.consumer(),
          run.size(),
          failure);
      return false;
    }
    for (Entry e : run) {
      e.outcome = Outcome.APPLIED;
    }
    return true;
  }

  /** One event's handler behind its savepoint, in the event's consumer span. */
  private void runOne(Connection conn, Entry e, Handler handler, Set<AggregateKey> broken)
      throws SQLException {
    Savepoint savepoint = conn.setSavepoint();
    try (Tracing.Span span =
        p.tracing.startConsumer(e.event, p.consumer(), e.decoded.message().origin())) {
      try {
        InboxProcessor.call(handler, conn, e.event);
        e.outcome = Outcome.APPLIED;
        span.outcome(Outcome.APPLIED.name());
        return;
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash;
      } catch (Refused refused) {
        conn.rollback(savepoint);
        e.refused = refused;
        span.outcome(Outcome.DEAD_LETTERED.name());
      } catch (RuntimeException | Error failure) {
        rethrowIfTransactionLost(failure);
        conn.rollback(savepoint);
        e.failedAttempts = 1;
        p.countFailedAttempt();
        span.outcome("FAILED");
        LOG.warn(
            "consumer {}: handler failed on {} in a batch (attempt 1); it is retried alone",
            p.consumer(),
            e.event.eventId(),
            failure);
      }
    }
    e.defer();
    broken.add(e.key);
  }

  /**
   * A deadlock or a lost connection ends the whole transaction (MariaDB rolls it back on a
   * deadlock): the batch is retried, not the handler blamed.
   */
  private static void rethrowIfTransactionLost(Throwable failure) {
    if (Failures.transientConflict(failure) || Failures.databaseUnavailable(failure)) {
      if (failure instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(failure);
    }
  }

  private static List<Event> events(List<Entry> entries) {
    List<Event> events = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      events.add(e.event);
    }
    return events;
  }
}
