package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The benchmarks' service writers: each transaction inserts a business row into {@code
 * bench_orders} and appends one {@code OrderPlaced} event, as a service using the outbox does.
 */
final class OrderWriters {
  static final String TABLE =
      "CREATE TABLE bench_orders (id text PRIMARY KEY, customer text NOT NULL,"
          + " total_cents bigint NOT NULL, status text NOT NULL)";

  private OrderWriters() {}

  /**
   * Runs {@code writers} threads for {@code window}. {@code ratePerSec} 0 means as fast as
   * possible, otherwise the writers together pace themselves to that rate. Each commit's event id
   * and {@link System#nanoTime()} after the commit go into {@code commits}; {@code committed}
   * counts them. {@code idPrefix} goes before the order ids (a second run on one table); with
   * {@code cpuBefore}, the CPU used from then to the end of the window is printed.
   */
  static void run(
      DataSource pool,
      int writers,
      Duration window,
      Map<UUID, Long> commits,
      AtomicLong committed,
      int ratePerSec,
      String idPrefix,
      CpuTrace cpuBefore)
      throws Exception {
    Outbox outbox = Outbox.create();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    long start = System.nanoTime();
    long end = start + window.toNanos();
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      futures.add(
          threads.submit(
              () -> {
                long intervalNanos = ratePerSec == 0 ? 0 : 1_000_000_000L * writers / ratePerSec;
                long next = start + intervalNanos * writer / writers;
                for (long i = 0; System.nanoTime() < end && !stop.get(); i++) {
                  if (intervalNanos > 0) {
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                      LockSupport.parkNanos(wait); // pacing the offered load
                    }
                    next += intervalNanos;
                  }
                  Event event = write(pool, outbox, idPrefix + "order-" + writer + "-" + i, i);
                  commits.put(event.eventId(), System.nanoTime());
                  committed.incrementAndGet();
                }
                return null;
              }));
    }
    try {
      for (Future<?> f : futures) {
        f.get();
      }
      if (cpuBefore != null) {
        CpuTrace.sample().printSince(cpuBefore, committed.get());
      }
    } finally {
      stop.set(true);
      threads.shutdownNow();
    }
  }

  /** One service transaction: the order row and its event; returns the event. */
  private static Event write(DataSource pool, Outbox outbox, String orderId, long n)
      throws SQLException {
    Event event =
        Event.builder()
            .aggregate("Order", orderId, 1)
            .eventType("OrderPlaced")
            .payload(
                "{\"orderId\":\""
                    + orderId
                    + "\",\"totalCents\":"
                    + (n % 10_000)
                    + ",\"currency\":\"EUR\"}")
            .build();
    Transactions.inTransaction(
        pool,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO bench_orders (id, customer, total_cents, status)"
                      + " VALUES (?, ?, ?, 'PLACED')")) {
            ps.setString(1, orderId);
            ps.setString(2, "customer-" + (n % 97));
            ps.setLong(3, n % 10_000);
            ps.executeUpdate();
          }
          outbox.append(c, event);
          return null;
        });
    return event;
  }
}
