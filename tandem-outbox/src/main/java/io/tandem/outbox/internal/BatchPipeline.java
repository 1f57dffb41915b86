package io.tandem.outbox.internal;

import java.util.ArrayDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The full batches of a backlog in flight: each is published and recorded by a publisher thread
 * while the cycle reads the next one above a cursor (the last row handed over), so up to {@value
 * #DEPTH} batches are in flight. Draining waits for all of them and puts the cursor back to 0.
 *
 * <p>Threads: a batch's events, outcome and record belong to the one publisher task that runs it
 * (nothing of it is written here); the cursor and the futures belong to the thread that runs the
 * cycles, the only caller.
 */
public final class BatchPipeline {
  /** Batches in flight at most. */
  public static final int DEPTH = 2;

  private final ExecutorService publishers;
  private final RelayLifecycle lifecycle;
  private final ArrayDeque<Future<?>> inFlight = new ArrayDeque<>();
  private long cursor;

  public BatchPipeline(ExecutorService publishers, RelayLifecycle lifecycle) {
    this.publishers = publishers;
    this.lifecycle = lifecycle;
  }

  /** Where the next read starts: above the cursor in a pipelined cycle, else at 0. */
  public long readFrom(boolean pipelined) {
    return pipelined ? cursor : 0;
  }

  /** Whether no batch is in flight. */
  public boolean idle() {
    return inFlight.isEmpty();
  }

  /**
   * Hands a full batch, read up to row {@code lastRowId}, to a publisher; returns once fewer than
   * {@value #DEPTH} batches are in flight.
   */
  public void submit(long lastRowId, Runnable publishAndRecord) {
    cursor = lastRowId;
    inFlight.add(publishers.submit(publishAndRecord));
    while (inFlight.size() >= DEPTH) {
      Futures.await(inFlight.poll());
    }
  }

  /**
   * Waits until every batch in flight is published and recorded; the next read starts at 0.
   * Rethrows a simulated crash that happened in one.
   */
  public void drain() {
    while (!inFlight.isEmpty()) {
      Futures.await(inFlight.poll());
    }
    cursor = 0;
    lifecycle.rethrowCrash();
  }

  /** A crashed relay publishes nothing more: cancels the batches in flight. */
  public void abandon() {
    inFlight.forEach(f -> f.cancel(true));
    inFlight.clear();
  }
}
