package io.tandem.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.Tracing;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.testkit.TestEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundPublisherTest {
  /** Records each publish call; fails the events of aggregate {@code failing}. */
  static final class Recording implements Transport {
    final List<List<Event>> calls = new ArrayList<>();
    final String failing;
    final boolean throwing;

    Recording(String failing, boolean throwing) {
      this.failing = failing;
      this.throwing = throwing;
    }

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
      calls.add(List.copyOf(events));
      if (throwing) {
        throw new IllegalStateException("client closed");
      }
      return events.stream()
          .map(
              e ->
                  e.aggregateId().equals(failing)
                      ? PublishOutcome.failed(
                          e.eventId(), new PublishException(ErrorClass.UNROUTABLE, "no", null))
                      : PublishOutcome.acknowledged(e.eventId()))
          .toList();
    }

    @Override
    public void close() {}
  }

  private static List<RoundPublisher.Item> items(List<Event> events) {
    List<RoundPublisher.Item> items = new ArrayList<>();
    long row = 1;
    for (Event e : events) {
      items.add(
          new RoundPublisher.Item(row++, new Aggregate(e.aggregateType(), e.aggregateId()), e, 1));
    }
    return items;
  }

  @Test
  void noCallCarriesTwoVersionsOfOneAggregateAndAFailureStopsOnlyItsAggregate() {
    Recording transport = new Recording("order-1", false);
    List<Event> events = TestEvents.events("order", 3, 9);
    RoundPublisher.Result result =
        new RoundPublisher(transport, Duration.ofSeconds(1)).publish(items(events));

    for (List<Event> call : transport.calls) {
      assertThat(TestEvents.repeatedAggregates(call)).isEmpty();
    }
    assertThat(transport.calls).hasSize(3);
    assertThat(result.failed()).hasSize(1);
    assertThat(result.failed().get(0).item().event().aggregateVersion()).isEqualTo(1);
    assertThat(result.acknowledged()).hasSize(6);
    assertThat(result.acknowledged()).noneMatch(i -> i.aggregate().id().equals("order-1"));
    assertThat(result.everythingFailed()).isFalse();
  }

  @Test
  void aTransportThatThrowsFailsTheRoundRetriably() {
    Recording transport = new Recording(null, true);
    RoundPublisher.Result result =
        new RoundPublisher(transport, Duration.ofSeconds(1))
            .publish(items(TestEvents.events("order", 2, 4)));
    assertThat(result.everythingFailed()).isTrue();
    assertThat(result.failed()).hasSize(2).allMatch(f -> f.error().retriable());
    assertThat(result.failed().get(0).error().getMessage()).contains("client closed");
  }

  @Test
  void eachBrokerCallIsOneSpanOverItsEventsWithItsOutcome() {
    List<String> spans = new ArrayList<>();
    Tracing recording =
        new Tracing() {
          @Override
          public java.util.Map<String, String> currentContext() {
            return java.util.Map.of();
          }

          @Override
          public Span startConsumer(Event event, String consumer, String origin) {
            throw new AssertionError("a relay starts no consumer span");
          }

          @Override
          public Span startBatch(String name, List<Event> events) {
            StringBuilder line = new StringBuilder(name + " " + events.size() + " events");
            return new Span() {
              @Override
              public void outcome(String outcome) {
                line.append(": ").append(outcome);
              }

              @Override
              public void failed(Throwable failure) {
                line.append(": failed");
              }

              @Override
              public void close() {
                spans.add(line.toString());
              }
            };
          }
        };
    new RoundPublisher(new Recording("order-1", false), Duration.ofSeconds(1), recording)
        .publish(items(TestEvents.events("order", 3, 9)));

    assertThat(spans)
        .containsExactly(
            "publish recording 3 events: 2 of 3 acknowledged",
            "publish recording 2 events: 2 of 2 acknowledged",
            "publish recording 2 events: 2 of 2 acknowledged");
  }
}
