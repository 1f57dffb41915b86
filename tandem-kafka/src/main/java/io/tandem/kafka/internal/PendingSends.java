package io.tandem.kafka.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.clients.producer.Callback;

/**
 * The results of one batch of asynchronous sends, filled in by the producer's callbacks (on its I/O
 * thread) and read by the publishing thread once all completed or the deadline passed.
 */
final class PendingSends {
  private static final Object ACKNOWLEDGED = new Object();

  private final AtomicReferenceArray<Object> results;
  private final CountDownLatch remaining;

  PendingSends(int size) {
    this.results = new AtomicReferenceArray<>(size);
    this.remaining = new CountDownLatch(size);
  }

  Callback callback(int index) {
    return (metadata, exception) -> complete(index, exception == null ? ACKNOWLEDGED : exception);
  }

  /** Records a failure that happened before the send reached the producer. */
  void fail(int index, Throwable failure) {
    complete(index, failure);
  }

  /** Waits until every send completed or {@code deadlineNanos} (a {@link System#nanoTime()}). */
  void await(long deadlineNanos) throws InterruptedException {
    remaining.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  boolean completed(int index) {
    return results.get(index) != null;
  }

  boolean acknowledged(int index) {
    return results.get(index) == ACKNOWLEDGED;
  }

  /** The failure of send {@code index}, or null if it was acknowledged or has not completed. */
  Throwable failure(int index) {
    return results.get(index) instanceof Throwable t ? t : null;
  }

  private void complete(int index, Object result) {
    // Kafka may report a failed send both through the callback and by throwing; count it once.
    if (results.compareAndSet(index, null, result)) {
      remaining.countDown();
    }
  }
}
