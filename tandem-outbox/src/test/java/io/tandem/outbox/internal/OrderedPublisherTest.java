package io.tandem.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.outbox.ManualRelayClock;
import io.tandem.testkit.TestEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Round-by-round publishing on a clock the test moves, with an in-memory transport. */
class OrderedPublisherTest {
  private final ManualRelayClock clock = ManualRelayClock.frozen();
  private final RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), "r", "fake");
  private final FakeTransport transport = new FakeTransport();
  private final OrderedPublisher publisher =
      new OrderedPublisher(
          transport,
          Duration.ofSeconds(1),
          new FailurePolicy("r", RetryPolicy.DEFAULTS, metrics),
          metrics,
          clock);
  private final OwnedPartitions owned =
      new OwnedPartitions(Map.of(0, 1L), clock.nanoTime() + Duration.ofSeconds(10).toNanos());

  @Test
  void aVersionLeavesOnlyInARoundAfterItsPredecessorWasAcknowledged() {
    List<ClaimedEvent> batch = batch(TestEvents.events("Order", 3, 9)); // 3 aggregates x v1..v3
    OrderedPublisher.Outcome outcome = publisher.publish(reversed(batch), owned);
    assertThat(transport.calls).hasSize(3);
    for (int round = 0; round < 3; round++) {
      long version = round + 1;
      assertThat(transport.calls.get(round))
          .hasSize(3)
          .allMatch(e -> e.aggregateVersion() == version);
    }
    assertThat(outcome.acknowledged()).hasSize(9);
    assertThat(outcome.failures()).isEmpty();
  }

  @Test
  void aRefusedVersionHoldsBackTheLaterVersionsOfItsAggregateOnly() {
    List<ClaimedEvent> batch = batch(TestEvents.events("Order", 2, 6)); // order-0, order-1 x v1..3
    transport.refuse = Set.of("order-0");
    OrderedPublisher.Outcome outcome = publisher.publish(batch, owned);
    assertThat(transport.calls.stream().flatMap(List::stream))
        .filteredOn(e -> e.aggregateId().equals("order-0"))
        .as("order-0 v2 and v3 wait behind the refused v1")
        .extracting(Event::aggregateVersion)
        .containsExactly(1L);
    assertThat(outcome.acknowledged()).hasSize(3); // order-1 v1..v3
    assertThat(outcome.failures())
        .singleElement()
        .satisfies(f -> assertThat(f.quarantine()).isFalse());
  }

  @Test
  void whatIsLeftWhenThePublishTimeoutRunsOutStaysDue() {
    List<ClaimedEvent> batch = batch(TestEvents.events("Order", 1, 3));
    transport.onPublish = events -> clock.advance(Duration.ofMillis(600)); // each call: 0.6 s
    OrderedPublisher.Outcome outcome = publisher.publish(batch, owned);
    assertThat(transport.calls).as("v1 at 0 s, v2 at 0.6 s, none at 1.2 s").hasSize(2);
    assertThat(outcome.acknowledged()).hasSize(2);
    assertThat(outcome.failures()).isEmpty();
  }

  @Test
  void nothingLeavesOnceTheLeaseIsNoLongerSafeToActOn() {
    List<ClaimedEvent> batch = batch(TestEvents.events("Order", 1, 2));
    clock.advance(Duration.ofSeconds(10));
    OrderedPublisher.Outcome outcome = publisher.publish(batch, owned);
    assertThat(transport.calls).isEmpty();
    assertThat(outcome.acknowledged()).isEmpty();
  }

  private static List<ClaimedEvent> batch(List<Event> events) {
    List<ClaimedEvent> batch = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      batch.add(new ClaimedEvent(i + 1, 0, events.get(i), 1));
    }
    return batch;
  }

  private static List<ClaimedEvent> reversed(List<ClaimedEvent> batch) {
    List<ClaimedEvent> copy = new ArrayList<>(batch);
    java.util.Collections.reverse(copy);
    return copy;
  }

  private static final class FakeTransport implements Transport {
    final List<List<Event>> calls = new ArrayList<>();
    Set<String> refuse = Set.of();
    Consumer<List<Event>> onPublish = events -> {};

    @Override
    public String name() {
      return "fake";
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
      calls.add(List.copyOf(events));
      onPublish.accept(events);
      List<PublishOutcome> outcomes = new ArrayList<>();
      for (Event e : events) {
        UUID id = e.eventId();
        outcomes.add(
            refuse.contains(e.aggregateId())
                ? PublishOutcome.failed(
                    id, new PublishException(ErrorClass.BROKER_UNAVAILABLE, "down", null))
                : PublishOutcome.acknowledged(id));
      }
      return outcomes;
    }

    @Override
    public void close() {}
  }
}
