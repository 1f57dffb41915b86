package io.tandem.outbox;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * An in-memory transport for relay logic tests: records every event it acknowledges and fails the
 * ones a test tells it to. The broker-facing behaviour is tested against real brokers elsewhere.
 */
final class RecordingTransport implements Transport {
  final List<Event> acknowledged = new CopyOnWriteArrayList<>();
  final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  final ConcurrentHashMap<UUID, Integer> attempts = new ConcurrentHashMap<>();
  volatile Function<Event, ErrorClass> failWith = e -> null;
  volatile Duration delay = Duration.ZERO;
  final java.util.concurrent.atomic.AtomicInteger throwNext =
      new java.util.concurrent.atomic.AtomicInteger();
  final java.util.concurrent.CountDownLatch publishing = new java.util.concurrent.CountDownLatch(1);

  @Override
  public String name() {
    return "recording";
  }

  @Override
  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    if (throwNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IllegalStateException("transport bug: publish threw instead of reporting");
    }
    publishing.countDown();
    batchSizes.add(events.size());
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
        outcomes.add(PublishOutcome.acknowledged(e.eventId()));
      } else {
        outcomes.add(
            PublishOutcome.failed(
                e.eventId(), new PublishException(error, "injected " + error, null)));
      }
    }
    return outcomes;
  }

  @Override
  public void close() {}
}
