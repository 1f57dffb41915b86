package io.tandem.nats.internal;

import io.tandem.core.spi.MessageSink;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands received messages to the sink on a thread of its own, in the order they came. The puller
 * thus takes every message off the client as soon as it arrives and marks it held (signalled in
 * progress) even while the sink blocks; otherwise a message waiting in the client's buffer behind a
 * full runner would outlive its ack wait and be delivered twice.
 */
final class HandOver {
  private static final Logger LOG = LoggerFactory.getLogger(HandOver.class);

  private final LinkedBlockingQueue<FetchedMessage> queue = new LinkedBlockingQueue<>();
  private final AtomicInteger untaken = new AtomicInteger(); // queued or inside the sink
  private final Object taken = new Object();
  private final HeldMessages held;
  private final String name;
  private volatile boolean refused;
  private volatile Thread thread;

  HandOver(HeldMessages held, String name) {
    this.held = held;
    this.name = name;
  }

  void start(MessageSink sink, String threadName) {
    Thread started = new Thread(() -> handOver(sink), threadName);
    thread = started;
    started.start();
  }

  /** Queues a message for the sink; the puller's side. */
  void put(FetchedMessage message) {
    untaken.incrementAndGet();
    held.hold(message);
    queue.add(message);
  }

  /**
   * Waits until the sink took every queued message.
   *
   * @return false if the sink refused a message, so that nothing more should be pulled
   */
  boolean awaitTaken() throws InterruptedException {
    synchronized (taken) {
      while (untaken.get() > 0 && !refused) {
        taken.wait(TimeUnit.SECONDS.toMillis(1));
      }
    }
    return !refused;
  }

  boolean refused() {
    return refused;
  }

  boolean alive() {
    Thread t = thread;
    return t != null && t.isAlive();
  }

  private void handOver(MessageSink sink) {
    try {
      while (true) {
        FetchedMessage message = queue.take();
        boolean accepted = sink.accept(message);
        untaken.decrementAndGet();
        if (!accepted) {
          refused = true;
          LOG.info("NATS source {} stops: the sink takes no more messages", name);
          held.release(message);
          return; // left unacknowledged: redelivered after the ack wait
        }
        if (untaken.get() == 0) {
          synchronized (taken) {
            taken.notifyAll();
          }
        }
      }
    } catch (InterruptedException e) {
      // closed
    } catch (RuntimeException e) {
      refused = true;
      LOG.error("NATS source {} stops: the sink failed", name, e);
    } finally {
      for (FetchedMessage left = queue.poll(); left != null; left = queue.poll()) {
        held.release(left);
      }
      synchronized (taken) {
        taken.notifyAll();
      }
    }
  }

  /** Interrupts the thread (it may wait in the sink) and waits for it at most {@code millis}. */
  void stop(long millis) throws InterruptedException {
    Thread t = thread;
    if (t != null && t != Thread.currentThread()) {
      t.interrupt();
      t.join(Math.max(1, millis));
    }
  }
}
