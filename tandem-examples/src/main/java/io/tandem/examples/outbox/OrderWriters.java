package io.tandem.examples.outbox;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The order service's writers in the outbox demo: they confirm orders (each confirmation commits
 * the order and its {@code OrderConfirmed} event together) and note when each commit returned, so
 * that billing's {@link #invoiced} can record the commit-to-invoice latency. Thread-safe.
 */
final class OrderWriters implements AutoCloseable {
  private final OrderService orders;
  private final ExecutorService pool;
  private final int writers;
  private final ConcurrentHashMap<UUID, Long> commitNanos = new ConcurrentHashMap<>();
  private final List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong committed = new AtomicLong();

  OrderWriters(OrderService orders, int writers) {
    this.orders = orders;
    this.writers = writers;
    this.pool =
        Executors.newFixedThreadPool(
            writers,
            r -> {
              Thread t = new Thread(r, "demo-order-writer");
              t.setDaemon(true);
              return t;
            });
  }

  /** Confirms orders {@code from..to} on this thread (their latency is not measured). */
  void confirm(int from, int to) throws SQLException {
    for (int n = from; n <= to; n++) {
      orders.confirm(OrderService.orderId(n));
      committed.incrementAndGet();
    }
  }

  /** Confirms orders {@code first+1 .. first+count} on the writer threads, each one measured. */
  List<Future<?>> start(int first, int count) {
    AtomicInteger next = new AtomicInteger(first + 1);
    int last = first + count;
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      futures.add(
          pool.submit(
              () -> {
                for (int n = next.getAndIncrement(); n <= last; n = next.getAndIncrement()) {
                  long before = System.nanoTime();
                  UUID eventId = orders.confirm(OrderService.orderId(n));
                  // The commit returned: from here the event is the relay's to publish. (Taken
                  // before the call would count the writer's own transaction as latency.)
                  commitNanos.put(eventId, Math.max(before, System.nanoTime()));
                  committed.incrementAndGet();
                }
                return null;
              }));
    }
    return futures;
  }

  /** Billing applied and committed {@code eventId}: notes a measured order's latency. */
  void invoiced(UUID eventId) {
    Long committedAt = eventId == null ? null : commitNanos.get(eventId);
    if (committedAt != null) {
      latencies.add((System.nanoTime() - committedAt) / 1e6);
    }
  }

  long committed() {
    return committed.get();
  }

  /** The measured orders' commit-to-invoice latencies in milliseconds, sorted. */
  List<Double> sortedLatencies() {
    List<Double> sorted;
    synchronized (latencies) {
      sorted = new ArrayList<>(latencies);
    }
    Collections.sort(sorted);
    return sorted;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
