package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Wraps a transport and notes when each event's acknowledgement came back (System.nanoTime). */
final class TimingTransport implements Transport {
  private final Transport delegate;
  final ConcurrentHashMap<UUID, Long> ackNanos = new ConcurrentHashMap<>();
  final ConcurrentHashMap<UUID, Long> sentNanos = new ConcurrentHashMap<>();
  final AtomicLong lastAckNanos = new AtomicLong();
  volatile boolean recordEach = true;

  TimingTransport(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    if (recordEach) {
      long sent = System.nanoTime();
      events.forEach(e -> sentNanos.putIfAbsent(e.eventId(), sent));
    }
    List<PublishOutcome> outcomes = delegate.publish(events, timeout);
    long now = System.nanoTime();
    lastAckNanos.set(now);
    if (recordEach) {
      for (PublishOutcome o : outcomes) {
        if (o.acknowledged()) {
          ackNanos.putIfAbsent(o.eventId(), now);
        }
      }
    }
    return outcomes;
  }

  @Override
  public void close() {
    delegate.close();
  }
}
