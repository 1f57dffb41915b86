package io.tandem.outbox.internal;

import io.tandem.core.FaultInjector;
import io.tandem.outbox.RelayClock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cycle of the relay: coordinates the partitions when due, reads due events of the owned ones,
 * and hands them over to be published in order and recorded.
 *
 * <p>Pipelined (the worker thread): a full batch (a backlog) goes to the {@link BatchPipeline}
 * while the next read starts above its cursor, so it skips rows that are published but not recorded
 * yet; and the claim holds back every event whose earlier version lies at or below the cursor.
 * Batches in flight therefore never hold two versions of one aggregate in different batches, and
 * can be published concurrently without breaking per-aggregate order. After a partial batch, or an
 * empty read, the pipeline drains and the next read starts from the beginning again, so rows held
 * back by the cursor, and rows that committed late with a smaller id, are read soon.
 *
 * <p>A partial batch is published on the cycle's thread itself, and its acknowledged rows are
 * marked by the recorder thread while the next one is read and published ({@link PublishedMarks}):
 * until then those rows are left out of every read; an event whose earlier version is among them
 * may go, since that version was acknowledged.
 *
 * <p>Threads: one thread at a time (the worker, or the caller of {@code runOnce}) runs cycles; the
 * pipeline's and the marks' queues belong to it.
 */
public final class RelayCycle {
  private static final Logger log = LoggerFactory.getLogger(RelayCycle.class);

  private final String relayId;
  private final int batchSize;
  private final OutboxStore store;
  private final LeaseScheduler leases;
  private final UndecodableRows undecodableRows;
  private final BatchPipeline pipeline;
  private final PublishedMarks marks;
  private final BatchPublication publication;
  private final RelayHealth health;
  private final RelayLifecycle lifecycle;
  private final RelayClock clock;

  /**
   * What a cycle did.
   *
   * @param read events read; -1 when the pipeline was drained and the caller should look again at
   *     once
   * @param acknowledged events of a caught-up batch the broker acknowledged (0 for other cycles)
   */
  public record Result(int read, int acknowledged) {
    static final Result NOTHING = new Result(0, 0);
    static final Result AGAIN = new Result(-1, 0);
  }

  public RelayCycle(
      RelaySettings settings,
      OutboxStore store,
      LeaseScheduler leases,
      UndecodableRows undecodableRows,
      BatchPipeline pipeline,
      PublishedMarks marks,
      BatchPublication publication,
      RelayHealth health,
      RelayLifecycle lifecycle) {
    this.relayId = settings.relayId();
    this.batchSize = settings.batchSize();
    this.clock = settings.clock();
    this.store = store;
    this.leases = leases;
    this.undecodableRows = undecodableRows;
    this.pipeline = pipeline;
    this.marks = marks;
    this.publication = publication;
    this.health = health;
    this.lifecycle = lifecycle;
  }

  /** Runs one cycle, pipelined (the worker) or not ({@code runOnce}). */
  public Result run(boolean pipelined) {
    lifecycle.rethrowCrash();
    if (leases.due()) {
      drain(); // record everything under the current leases before they change
      leases.coordinate();
    }
    OwnedPartitions owned = leases.owned();
    if (!owned.validAt(clock.nanoTime())) {
      drain();
      return Result.NOTHING;
    }
    long from = pipeline.readFrom(pipelined);
    marks.reap();
    long readStart = System.nanoTime();
    ClaimedBatch batch = store.claim(owned, from, batchSize);
    if (log.isTraceEnabled()) {
      log.trace(
          "relay {}: read {} events above row {} in {} us",
          relayId,
          batch.rowsRead(),
          from,
          (System.nanoTime() - readStart) / 1000);
    }
    if (batch.rowsRead() == 0) {
      if (pipeline.idle()) {
        health.cycleSucceeded();
        return Result.NOTHING;
      }
      drain();
      return Result.AGAIN;
    }
    // Rows that are not valid events are quarantined first, so they stop no other row.
    List<ClaimedEvent> claimed = undecodableRows.setAside(batch, owned);
    List<ClaimedEvent> read = marks.leaveOut(claimed);
    if (read.isEmpty()) {
      if (claimed.isEmpty()) {
        health.cycleSucceeded(); // it read only rows to quarantine, and quarantined them
        return new Result(batch.rowsRead(), 0);
      }
      marks.awaitAll(); // all it read is acknowledged and being marked: look again once marked
      return Result.AGAIN;
    }
    if (!pipelined) {
      publication.run(read, owned, false);
      return new Result(read.size(), 0);
    }
    if (batch.rowsRead() < batchSize) {
      return caughtUp(read, owned);
    }
    // A full batch means a backlog: keep reading above the cursor while it is published.
    pipeline.submit(batch.lastRowId(), () -> publication.run(read, owned, false));
    return new Result(batch.rowsRead(), 0); // a full read: look again at once
  }

  /**
   * Publishes a partial batch on this thread (no hand-over to the pipeline, whose thread would only
   * add a wake-up to the latency), has it marked on the recorder thread, and lets the full batches
   * finish: the next read starts from the beginning.
   */
  private Result caughtUp(List<ClaimedEvent> read, OwnedPartitions owned) {
    int acknowledged = 0;
    try {
      acknowledged = publication.run(read, owned, true);
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (RuntimeException e) {
      // logged by the publication; nothing was marked, the batch is read again
    }
    pipeline.drain();
    return new Result(read.size(), acknowledged);
  }

  /** Waits until every batch in flight and every queued mark is done; the next read starts at 0. */
  public void drain() {
    pipeline.drain();
    marks.awaitAll();
  }
}
