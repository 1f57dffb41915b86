package io.tandem.inbox;

import io.tandem.core.FaultInjector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker thread and the queued messages of the aggregates that map to it: it takes what it has,
 * up to {@code maxBatch}, without waiting for more (an idle stream keeps its latency), and hands
 * the batch to the {@link LaneWork}. Messages still queued when it stops are left for redelivery.
 */
final class Lane implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(Lane.class);

  final int index;
  final BlockingQueue<Decoded> queue = new LinkedBlockingQueue<>();
  final Thread thread;
  private final String consumer;
  private final int maxBatch;
  private final LaneWork work;
  private final BooleanSupplier stopping;
  private final Consumer<List<Decoded>> finished;
  private final Consumer<FaultInjector.SimulatedCrash> crashed;

  Lane(
      int index,
      String consumer,
      int maxBatch,
      LaneWork work,
      BooleanSupplier stopping,
      Consumer<List<Decoded>> finished,
      Consumer<FaultInjector.SimulatedCrash> crashed) {
    this.index = index;
    this.consumer = consumer;
    this.maxBatch = maxBatch;
    this.work = work;
    this.stopping = stopping;
    this.finished = finished;
    this.crashed = crashed;
    this.thread = new Thread(this, "tandem-consumer-" + consumer + "-" + index);
  }

  /**
   * Waits for the thread to end until {@code deadline} (nanoTime), then interrupts it; false when
   * it had to be interrupted.
   */
  boolean awaitStop(long deadline) {
    if (thread == Thread.currentThread() || !thread.isAlive()) {
      return true;
    }
    try {
      thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
    if (thread.isAlive()) {
      thread.interrupt();
      return false;
    }
    return true;
  }

  @Override
  public void run() {
    try {
      while (!stopping.getAsBoolean()) {
        Decoded next;
        try {
          next = queue.poll(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
        if (next == null) {
          continue;
        }
        List<Decoded> batch = new ArrayList<>();
        batch.add(next);
        queue.drainTo(batch, maxBatch - 1);
        try {
          work.process(batch);
        } catch (FaultInjector.SimulatedCrash crash) {
          crashed.accept(crash);
          return;
        } finally {
          finished.accept(batch);
        }
      }
    } finally {
      int left = queue.size();
      queue.clear();
      if (left > 0) {
        LOG.info(
            "consumer {}: lane {} leaves {} unprocessed messages for redelivery",
            consumer,
            index,
            left);
      }
    }
  }
}
