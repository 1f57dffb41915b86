package io.tandem.nats.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The messages a source received and that are not acknowledged yet. While the source runs, each one
 * older than a third of the ack wait is told to the server as still in progress ({@code +WPI}),
 * which restarts its ack wait: a message waiting in a busy runner is not redelivered to another
 * source while this process is alive, so the ack wait can be short and failover after a crash
 * quick. Once the source closes the signals stop, and JetStream redelivers what is left after one
 * ack wait.
 */
final class HeldMessages implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeldMessages.class);

  private final Set<FetchedMessage> held = ConcurrentHashMap.newKeySet();
  private final long intervalNanos;
  private final ScheduledExecutorService ticker;

  HeldMessages(Duration ackWait, String threadName) {
    this.intervalNanos = Math.max(ackWait.toNanos() / 3, TimeUnit.MILLISECONDS.toNanos(50));
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, threadName);
              thread.setDaemon(true);
              return thread;
            });
    ticker.scheduleWithFixedDelay(
        this::signalProgress, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
  }

  void hold(FetchedMessage message) {
    held.add(message);
  }

  void release(FetchedMessage message) {
    held.remove(message);
  }

  int size() {
    return held.size();
  }

  private void signalProgress() {
    long now = System.nanoTime();
    for (FetchedMessage message : held) {
      if (now - message.lastSignalNanos() >= intervalNanos) {
        try {
          message.signalInProgress(now);
        } catch (RuntimeException e) {
          // Disconnected: the server redelivers after the ack wait; the inbox ignores the repeat.
          LOG.debug("cannot signal {} in progress: {}", message.origin(), e.toString());
          return;
        }
      }
    }
  }

  /** Stops the signals; the messages still held are redelivered after one ack wait. */
  @Override
  public void close() {
    ticker.shutdownNow();
    held.clear();
  }
}
