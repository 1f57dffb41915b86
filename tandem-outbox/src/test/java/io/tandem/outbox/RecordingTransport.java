package io.tandem.outbox;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.testkit.TestEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An in-memory transport for relay logic tests: records every event it acknowledges and fails the
 * ones a test tells it to. The broker-facing behaviour is tested against real brokers elsewhere.
 *
 * <p>It refuses a publish call that carries two events of one aggregate (an {@link AssertionError},
 * also kept in {@link #violations} for a test whose relay swallows it): acknowledging in list
 * order, it would hide what a broker may do with them. It can hold a call until a test {@linkplain
 * #release() releases} it, and write every send and acknowledgement to a {@linkplain #journal
 * journal} shared with other transports.
 */
final class RecordingTransport implements Transport {
  final List<Event> acknowledged = new CopyOnWriteArrayList<>();
  final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  final List<List<Event>> calls = new CopyOnWriteArrayList<>();
  final List<String> violations = new CopyOnWriteArrayList<>();
  final ConcurrentHashMap<UUID, Integer> attempts = new ConcurrentHashMap<>();
  volatile Function<Event, ErrorClass> failWith = e -> null;
  volatile Duration delay = Duration.ZERO;
  final java.util.concurrent.atomic.AtomicInteger throwNext =
      new java.util.concurrent.atomic.AtomicInteger();
  final CountDownLatch publishing = new CountDownLatch(1);

  private final String name;
  private final List<String> journal;
  private volatile CountDownLatch gate;

  RecordingTransport() {
    this("recording", new CopyOnWriteArrayList<>());
  }

  /** A transport named {@code name} that writes "send|ack name type/id vN" lines to journal. */
  RecordingTransport(String name, List<String> journal) {
    this.name = name;
    this.journal = journal;
  }

  /** From now on, every publish call waits (holding its events) until {@link #release()}. */
  void holdCalls() {
    gate = new CountDownLatch(1);
  }

  /** Lets the held calls go on, and every later one. */
  void release() {
    CountDownLatch g = gate;
    gate = null;
    if (g != null) {
      g.countDown();
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    if (throwNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IllegalStateException("transport bug: publish threw instead of reporting");
    }
    List<String> repeated = TestEvents.repeatedAggregates(events);
    if (!repeated.isEmpty()) {
      String violation = "one publish call carried several versions of " + repeated + ": " + events;
      violations.add(violation);
      throw new AssertionError(violation);
    }
    calls.add(List.copyOf(events));
    events.forEach(e -> journal.add("send " + name + " " + describe(e)));
    publishing.countDown();
    batchSizes.add(events.size());
    CountDownLatch g = gate;
    if (g != null) {
      await(g); // a relay paused in the middle of publishing (a GC pause, a stalled network)
    }
    if (!delay.isZero()) {
      try {
        Thread.sleep(delay.toMillis()); // simulates a slow broker, not a wait for an outcome
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    }
    List<PublishOutcome> outcomes = new ArrayList<>();
    for (Event e : events) {
      attempts.merge(e.eventId(), 1, Integer::sum);
      ErrorClass error = failWith.apply(e);
      if (error == null) {
        acknowledged.add(e);
        journal.add("ack " + name + " " + describe(e));
        outcomes.add(PublishOutcome.acknowledged(e.eventId()));
      } else {
        outcomes.add(
            PublishOutcome.failed(
                e.eventId(), new PublishException(error, "injected " + error, null)));
      }
    }
    return outcomes;
  }

  static String describe(Event e) {
    return e.aggregateType() + "/" + e.aggregateId() + " v" + e.aggregateVersion();
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("a held publish call was never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {}
}
