package io.tandem.outbox.internal;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The worker's idle wait, which a notification (or a stop) ends early. A wake-up that arrives while
 * the worker is busy is kept and ends the next wait at once. Thread-safe.
 */
public final class WakeSignal {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean wakeRequested;

  /**
   * Waits up to {@code d} (in real time), until woken, or while {@code running} holds.
   *
   * @throws InterruptedException when the waiting thread was interrupted
   */
  public void pause(Duration d, BooleanSupplier running) throws InterruptedException {
    lock.lock();
    try {
      long nanos = d.toNanos();
      while (!wakeRequested && nanos > 0 && running.getAsBoolean()) {
        nanos = wake.awaitNanos(nanos);
      }
      wakeRequested = false;
    } finally {
      lock.unlock();
    }
  }

  /** Ends the current (or next) wait at once. */
  public void wakeUp() {
    lock.lock();
    try {
      wakeRequested = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
