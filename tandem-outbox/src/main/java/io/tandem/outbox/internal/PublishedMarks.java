package io.tandem.outbox.internal;

import io.tandem.core.ErrorSummary;
import io.tandem.outbox.RelayClock;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records what the broker made of a batch — acknowledged rows marked published under the epochs
 * held, retries scheduled, quarantines — either at once ({@link #record}) or, for a caught-up batch
 * without failures, on the recorder executor ({@link #recordLater}) while the relay reads on. Until
 * such a mark committed, its rows are <em>unrecorded</em>: still unpublished in the table, and left
 * out of every read ({@link #leaveOut}).
 *
 * <p>Threads: {@link #record} may run on any thread (the cycle's, a publisher's, the recorder's).
 * The queue of pending marks and the unrecorded rows belong to the thread that runs the cycles:
 * {@link #recordLater}, {@link #reap}, {@link #awaitAll}, {@link #leaveOut} and {@link #abandon}
 * are called from it only.
 */
public final class PublishedMarks {
  private static final Logger log = LoggerFactory.getLogger(PublishedMarks.class);
  private static final int QUEUED = 4;

  private final OutboxStore store;
  private final String relayId;
  private final RelayHealth health;
  private final RelayMetrics metrics;
  private final RetryLooks retryLooks;
  private final RelayClock clock;
  private final ExecutorService recorder;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private final Set<Long> unrecorded = new HashSet<>();

  public PublishedMarks(
      OutboxStore store,
      String relayId,
      RelayHealth health,
      RelayMetrics metrics,
      RetryLooks retryLooks,
      RelayClock clock,
      ExecutorService recorder) {
    this.store = store;
    this.relayId = relayId;
    this.health = health;
    this.metrics = metrics;
    this.retryLooks = retryLooks;
    this.clock = clock;
    this.recorder = recorder;
  }

  /** A mark queued on the recorder and the rows it marks. */
  private record Pending(Future<?> done, List<Long> rows) {}

  /** Records a batch's outcome on this thread; a failure is logged and leaves the rows due. */
  public void record(OwnedPartitions owned, OrderedPublisher.Outcome outcome) {
    List<Long> acknowledged = outcome.acknowledged();
    int marked;
    try {
      marked = store.record(relayId, owned, acknowledged, outcome.failures());
    } catch (RuntimeException e) {
      metrics.lastError(ErrorSummary.of(e));
      health.cycleFailed(e);
      log.error(
          "relay {}: recording a batch failed; its {} acknowledged events stay unpublished and"
              + " are published again (consumers deduplicate)",
          relayId,
          acknowledged.size(),
          e);
      return;
    }
    health.cycleSucceeded();
    metrics.recorded(marked, outcome.failures().size());
    // the database set each retry's next attempt at its transaction's time, before now, plus this
    long now = clock.nanoTime();
    for (OutboxStore.Failure f : outcome.failures()) {
      if (!f.quarantine()) {
        retryLooks.add(now + f.retryDelay().toNanos());
      }
    }
    if (marked < acknowledged.size()) {
      log.warn(
          "relay {}: {} of {} acknowledged events were not marked: their partition moved to"
              + " another relay, which publishes them again (consumers deduplicate)",
          relayId,
          acknowledged.size() - marked,
          acknowledged.size());
    } else {
      metrics.lastError(null);
    }
  }

  /** Queues the mark of acknowledged rows on the recorder; waits while too many are queued. */
  public void recordLater(OwnedPartitions owned, List<Long> acknowledged) {
    if (acknowledged.isEmpty()) {
      return;
    }
    unrecorded.addAll(acknowledged);
    OrderedPublisher.Outcome outcome = new OrderedPublisher.Outcome(acknowledged, List.of());
    pending.add(new Pending(recorder.submit(() -> record(owned, outcome)), acknowledged));
    while (pending.size() > QUEUED) {
      forget(awaited(pending.poll()));
    }
  }

  /**
   * Forgets the rows of finished marks (committed, or failed and so due again). Called before a
   * read only, so that a read never starts before the mark of a row it no longer leaves out.
   */
  public void reap() {
    while (!pending.isEmpty() && pending.peek().done().isDone()) {
      forget(pending.poll());
    }
  }

  /** Waits until every queued mark is done. */
  public void awaitAll() {
    while (!pending.isEmpty()) {
      forget(awaited(pending.poll()));
    }
  }

  /** The events of {@code claimed} whose rows are not waiting for their mark. */
  public List<ClaimedEvent> leaveOut(List<ClaimedEvent> claimed) {
    return unrecorded.isEmpty()
        ? claimed
        : claimed.stream().filter(c -> !unrecorded.contains(c.rowId())).toList();
  }

  /** A crashed relay marks nothing more: cancels the queued marks. */
  public void abandon() {
    pending.forEach(p -> p.done().cancel(true));
    pending.clear();
    unrecorded.clear();
  }

  private static Pending awaited(Pending mark) {
    Futures.await(mark.done());
    return mark;
  }

  private void forget(Pending done) {
    unrecorded.removeAll(done.rows());
  }
}
