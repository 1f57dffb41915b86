package io.tandem.nats.internal;

import io.nats.client.api.PublishAck;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

/**
 * The acks of one batch of asynchronous publishes, filled in by jnats's callbacks and read by the
 * publishing thread once all completed or the deadline passed.
 */
final class PendingAcks {
  private final AtomicReferenceArray<Object> results;
  private final CountDownLatch remaining;

  PendingAcks(int size) {
    this.results = new AtomicReferenceArray<>(size);
    this.remaining = new CountDownLatch(size);
  }

  BiConsumer<PublishAck, Throwable> callback(int index) {
    return (ack, failure) ->
        complete(
            index,
            failure != null
                ? failure
                : ack != null ? ack : new IllegalStateException("JetStream returned no ack"));
  }

  /** Records a failure that happened before the message reached jnats. */
  void fail(int index, Throwable failure) {
    complete(index, failure);
  }

  /** Waits until every publish completed or {@code deadlineNanos} (a {@link System#nanoTime()}). */
  void await(long deadlineNanos) throws InterruptedException {
    remaining.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  boolean completed(int index) {
    return results.get(index) != null;
  }

  /** The ack of publish {@code index}: the stream stored the message (or already had it). */
  PublishAck ack(int index) {
    return results.get(index) instanceof PublishAck ack ? ack : null;
  }

  /** The failure of publish {@code index}, or null if it was acknowledged or has not completed. */
  Throwable failure(int index) {
    return results.get(index) instanceof Throwable t ? t : null;
  }

  private void complete(int index, Object result) {
    if (result != null && results.compareAndSet(index, null, result)) {
      remaining.countDown();
    }
  }
}
