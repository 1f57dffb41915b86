package io.tandem.outbox.internal;

import io.tandem.core.Event;
import io.tandem.core.Tracing;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.core.spi.TransportReplies;
import io.tandem.outbox.RelayClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Publishes a batch round by round, so that no event leaves before the previous version of its
 * aggregate was acknowledged: round k holds the k-th pending event of every aggregate still in good
 * standing; a refused event holds back the rest of its aggregate. Events left unsent (out of time
 * or lease) stay due and are read again. Thread-safe: each call keeps its batch's state in locals
 * and returns it.
 */
public final class OrderedPublisher {
  private final Transport transport;
  private final Duration publishTimeout;
  private final FailurePolicy failures;
  private final RelayMetrics metrics;
  private final RelayClock clock;
  private final Tracing tracing = Tracing.get();

  public OrderedPublisher(
      Transport transport,
      Duration publishTimeout,
      FailurePolicy failures,
      RelayMetrics metrics,
      RelayClock clock) {
    this.transport = transport;
    this.publishTimeout = publishTimeout;
    this.failures = failures;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** What the broker made of one batch: the acknowledged rows, and the failures to record. */
  public record Outcome(List<Long> acknowledged, List<OutboxStore.Failure> failures) {}

  /** Publishes {@code batch} under the leases {@code owned}, within the publish timeout. */
  public Outcome publish(List<ClaimedEvent> batch, OwnedPartitions owned) {
    List<Long> acknowledged = new ArrayList<>(batch.size());
    List<OutboxStore.Failure> failed = new ArrayList<>();
    Map<String, Deque<ClaimedEvent>> byAggregate = new LinkedHashMap<>();
    for (ClaimedEvent c : batch) {
      byAggregate.computeIfAbsent(aggregateKey(c), k -> new ArrayDeque<>()).add(c);
    }
    byAggregate.values().forEach(OrderedPublisher::sortByVersion);
    long deadline = clock.nanoTime() + publishTimeout.toNanos();
    while (!byAggregate.isEmpty()) {
      long now = clock.nanoTime();
      long budget = Math.min(deadline - now, owned.validUntilNanos() - now);
      if (budget <= 0) {
        break; // out of time or lease: the rest stays due
      }
      List<ClaimedEvent> round = new ArrayList<>(byAggregate.size());
      byAggregate.values().forEach(q -> round.add(q.poll()));
      List<PublishOutcome> outcomes = send(round, budget);
      Instant ackedAt = clock.now();
      for (int i = 0; i < round.size(); i++) {
        ClaimedEvent c = round.get(i);
        PublishOutcome outcome = outcomes.get(i);
        if (outcome.acknowledged()) {
          acknowledged.add(c.rowId());
          metrics.acknowledgedAfter(Duration.between(c.event().occurredAt(), ackedAt));
        } else {
          failed.add(failures.decide(c, outcome.failure()));
          byAggregate.remove(aggregateKey(c)); // later versions of this aggregate wait for it
        }
      }
      byAggregate.values().removeIf(Deque::isEmpty);
    }
    return new Outcome(acknowledged, failed);
  }

  /** One broker call for one round, with one span linked to each event's own trace. */
  private List<PublishOutcome> send(List<ClaimedEvent> round, long budgetNanos) {
    metrics.attempted(round.size());
    List<Event> events = round.stream().map(ClaimedEvent::event).toList();
    List<PublishOutcome> outcomes;
    // the events' consumers are children of the spans that appended them, not of this one
    try (Tracing.Span span = tracing.startBatch("publish " + transport.name(), events)) {
      outcomes = transport.publish(events, Duration.ofNanos(budgetNanos));
      span.outcome(
          outcomes.stream().filter(PublishOutcome::acknowledged).count()
              + " of "
              + events.size()
              + " acknowledged");
    }
    TransportReplies.check(
        transport.name(), round.stream().map(c -> c.event().eventId()).toList(), outcomes);
    return outcomes;
  }

  private static String aggregateKey(ClaimedEvent c) {
    return c.event().aggregateType() + '\u0000' + c.event().aggregateId();
  }

  private static void sortByVersion(Deque<ClaimedEvent> queue) {
    if (queue.size() > 1) {
      List<ClaimedEvent> sorted = new ArrayList<>(queue);
      sorted.sort(Comparator.comparingLong(c -> c.event().aggregateVersion()));
      queue.clear();
      queue.addAll(sorted);
    }
  }
}
