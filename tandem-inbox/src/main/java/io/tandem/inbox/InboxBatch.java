package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.inbox.Attempts.Done;
import io.tandem.inbox.Attempts.Ending;
import io.tandem.inbox.Attempts.Stopped;
import io.tandem.inbox.internal.AggregateKey;
import io.tandem.inbox.internal.BatchInbox;
import io.tandem.inbox.internal.Failures;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies several delivered messages of one consumer in one local transaction, with the guarantees
 * of the one-message path and one commit for all of them: the batch's {@link BatchGuard ordering
 * guard} decides each event; the inbox records of those to apply are inserted in one multi-row
 * statement that says which ids are new (an id not new although its version is sends the batch one
 * by one); the {@link BatchHandlers handlers} run, behind savepoints only when one failed in the
 * first run; the positions move in one statement that also finds the parked successors. After the
 * commit, the left-out messages take the one-message path alone, in order.
 *
 * <p>A failure of the transaction itself retries it when it is a deadlock or the database is
 * unreachable, and otherwise applies the messages one by one — where a failure outside the handlers
 * is retried without giving up, never dead-lettered. Returns each message's outcome; settles none.
 * Thread-safe.
 */
final class InboxBatch {
  private static final Logger LOG = LoggerFactory.getLogger(InboxBatch.class);

  /** Sends the batch down the one-message path (a case only that path knows). */
  private static final class OneByOne extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OneByOne(String message) {
      super(message, null, false, false);
    }
  }

  private final ConsumerParts parts;
  private final Applier applier;
  private final DeadLetterWriter deadLetters;
  private final BatchGuard guard;
  private final BatchHandlers handlers;
  private final BatchInbox inbox;

  InboxBatch(ConsumerParts parts, Applier applier, DeadLetterWriter deadLetters) {
    this.parts = parts;
    this.applier = applier;
    this.deadLetters = deadLetters;
    this.guard =
        new BatchGuard(
            parts, new OrderingGuard(parts.dialect(), parts.consumer(), parts.startAtFirstSeen()));
    this.handlers = new BatchHandlers(parts);
    this.inbox = new BatchInbox(parts.dialect());
  }

  List<Outcome> process(List<Decoded> batch, BooleanSupplier stopping) {
    Outcome[] outcomes = new Outcome[batch.size()];
    List<BatchEntry> entries = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      Decoded d = batch.get(i);
      if (d.event() == null) {
        outcomes[i] = applier.apply(d, stopping, 0); // dead-lettered as not a Tandem event
      } else {
        entries.add(new BatchEntry(i, d));
      }
    }
    if (entries.isEmpty()) {
      return List.of(outcomes);
    }
    Ending<Set<AggregateKey>> ending =
        parts
            .attempts()
            .run(
                "applying a batch of " + entries.size(),
                conn -> apply(conn, entries),
                0,
                true,
                stopping);
    if (ending instanceof Stopped) {
      entries.forEach(e -> outcomes[e.index] = Outcome.ABANDONED);
      return List.of(outcomes);
    }
    if (!(ending instanceof Done<Set<AggregateKey>> done)) {
      LOG.warn(
          "consumer {}: the batch transaction failed ({}); applying its {} messages one by one",
          parts.consumer(),
          describe(ending),
          entries.size());
      entries.forEach(e -> outcomes[e.index] = applier.apply(e.decoded, stopping, 0));
      return List.of(outcomes);
    }
    for (BatchEntry e : entries) {
      if (!e.deferred) {
        parts.afterCommit().committed(e.event, e.outcome);
        parts.metrics().count(e.outcome);
        outcomes[e.index] = e.outcome;
      }
    }
    for (BatchEntry e : entries) {
      if (e.deferred) {
        outcomes[e.index] = alone(e, stopping);
      }
    }
    for (AggregateKey k : done.value()) {
      applier.drain(k.type(), k.id(), stopping);
    }
    return List.of(outcomes);
  }

  private static String describe(Ending<?> ending) {
    if (ending instanceof Attempts.Failed<?> failed) {
      return Failures.describe(failed.failure());
    }
    if (ending instanceof Attempts.Rejected<?> rejected) {
      return Failures.describe(rejected.verdict());
    }
    return ending.toString();
  }

  private Outcome alone(BatchEntry e, BooleanSupplier stopping) {
    if (stopping.getAsBoolean()) {
      return Outcome.ABANDONED;
    } else if (e.refused != null) {
      return deadLetters.write(
          e.decoded, e.refused.reason, e.refused.getMessage(), e.failedAttempts + 1, stopping);
    }
    return applier.apply(e.decoded, stopping, e.failedAttempts);
  }

  /**
   * The batch's transaction; returns the aggregates whose next version waits parked. It runs the
   * handlers without savepoints first; when one fails, everything is rolled back and the batch runs
   * again with a savepoint per call, which isolates the failing one.
   */
  private Set<AggregateKey> apply(Connection conn, List<BatchEntry> entries) throws SQLException {
    try {
      return apply(conn, entries, false);
    } catch (BatchHandlers.Redo redo) {
      LOG.debug(
          "consumer {}: a handler failed in a batch of {}; again with savepoints",
          parts.consumer(),
          entries.size(),
          redo.getCause());
      conn.rollback();
      return apply(conn, entries, true);
    }
  }

  private Set<AggregateKey> apply(Connection conn, List<BatchEntry> entries, boolean savepoints)
      throws SQLException {
    Map<UUID, BatchEntry> firsts = new HashMap<>();
    Map<AggregateKey, List<BatchEntry>> byAggregate = new LinkedHashMap<>();
    for (BatchEntry e : entries) {
      e.reset();
      e.copyOf = firsts.putIfAbsent(e.event.eventId(), e);
      if (e.copyOf == null) {
        byAggregate.computeIfAbsent(e.key, k -> new ArrayList<>()).add(e);
      }
    }
    List<BatchEntry> toApply = new ArrayList<>();
    if (parts.ordered()) {
      toApply = guard.admit(conn, byAggregate);
    } else {
      byAggregate.values().forEach(toApply::addAll);
    }
    Set<UUID> fresh = inbox.recordProcessed(conn, parts.consumer(), events(toApply));
    List<BatchEntry> handled = new ArrayList<>();
    for (BatchEntry e : toApply) {
      if (fresh.contains(e.event.eventId())) {
        handled.add(e);
      } else if (parts.ordered()) {
        throw new OneByOne(
            "event " + e.event.eventId() + " was processed before at another version");
      } else {
        e.outcome = Outcome.DUPLICATE;
      }
    }
    handlers.run(conn, handled, savepoints);
    List<UUID> forget = new ArrayList<>();
    Map<AggregateKey, Long> moved = new HashMap<>();
    for (BatchEntry e : handled) {
      if (e.deferred) {
        forget.add(e.event.eventId());
      } else {
        moved.merge(e.key, e.event.aggregateVersion(), Math::max);
      }
    }
    inbox.forget(conn, parts.consumer(), forget);
    Set<AggregateKey> successorParked = parts.ordered() ? guard.move(conn, moved) : Set.of();
    for (BatchEntry e : entries) {
      if (e.copyOf != null && e.copyOf.deferred) {
        e.defer();
      } else if (e.copyOf != null) {
        e.outcome = Outcome.DUPLICATE;
      }
    }
    return successorParked;
  }

  private static List<Event> events(List<BatchEntry> entries) {
    List<Event> events = new ArrayList<>(entries.size());
    entries.forEach(e -> events.add(e.event));
    return events;
  }
}
