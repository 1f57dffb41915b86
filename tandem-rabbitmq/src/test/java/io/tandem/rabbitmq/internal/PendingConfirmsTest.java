package io.tandem.rabbitmq.internal;

import static io.tandem.rabbitmq.internal.RabbitErrorsTest.channelClosed;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AlreadyClosedException;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The confirm bookkeeping alone, fed the broker's answers in the orders RabbitMQ sends them. The
 * real-broker behaviour is covered by RabbitTransportTest.
 */
class PendingConfirmsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  private static List<Event> events(int count) {
    return IntStream.rangeClosed(1, count)
        .mapToObj(
            v ->
                Event.builder()
                    .aggregate("Order", "order-1", v)
                    .eventType("OrderPlaced")
                    .payload("{\"v\":" + v + "}")
                    .build())
        .toList();
  }

  /** Events 0..n-1 published to {@code exchange} as delivery tags 1..n. */
  private static PendingConfirms published(List<Event> events, String exchange, int bodySize) {
    PendingConfirms pending = new PendingConfirms(events);
    for (int i = 0; i < events.size(); i++) {
      pending.route(i, exchange, bodySize);
      pending.published(i + 1, i);
    }
    return pending;
  }

  private static List<Object> classes(List<PublishOutcome> outcomes) {
    return outcomes.stream()
        .map(o -> o.acknowledged() ? (Object) "ACK" : o.failure().errorClass())
        .toList();
  }

  @Test
  void aReturnedMessageStaysUnroutableWhenTheBrokerConfirmsItAfterwards() {
    List<Event> events = events(3);
    PendingConfirms pending = published(events, "x", 10);

    pending.returned(312, "NO_ROUTE", events.get(1).eventId().toString());
    pending.acknowledge(3, true);

    List<PublishOutcome> outcomes = pending.outcomes(TIMEOUT, false);
    assertThat(classes(outcomes)).containsExactly("ACK", ErrorClass.UNROUTABLE, "ACK");
    assertThat(outcomes.get(1).failure().getMessage())
        .contains("312 NO_ROUTE", "exchange 'x'", "routing key 'order-1'");
    assertThat(pending.settled()).isTrue();
  }

  @Test
  void singleAndMultipleAcksAndNacksCompleteExactlyTheirTags() {
    PendingConfirms pending = published(events(5), "x", 10);

    pending.acknowledge(2, false);
    pending.reject(3, true); // tags 1 and 3
    assertThat(pending.settled()).isFalse();
    pending.acknowledge(4, false);

    List<PublishOutcome> outcomes = pending.outcomes(TIMEOUT, false);
    assertThat(classes(outcomes))
        .containsExactly(
            ErrorClass.TRANSIENT, "ACK", ErrorClass.TRANSIENT, "ACK", ErrorClass.TIMEOUT);
    assertThat(outcomes.get(0).failure().getMessage()).contains("basic.nack");
    assertThat(outcomes.get(4).failure().getMessage()).contains("not confirmed within PT1S");
  }

  @Test
  void aClosedChannelChargesOnlyTheEventsItsReasonNames() {
    List<Event> events = events(4);
    PendingConfirms pending = new PendingConfirms(events);
    pending.route(0, "orders", 10);
    pending.route(1, "gone", 10);
    pending.route(2, "orders", 10);
    pending.route(3, "gone", 10);
    pending.published(1, 0);
    pending.acknowledge(1, false);
    pending.published(2, 1);
    pending.published(3, 2);
    var close = channelClosed(404, "NOT_FOUND - no exchange 'gone' in vhost '/'");
    pending.channelClosed(close);
    pending.failUnsent(3, new AlreadyClosedException(close));

    List<PublishOutcome> outcomes = pending.outcomes(TIMEOUT, false);
    assertThat(classes(outcomes))
        .containsExactly("ACK", ErrorClass.UNROUTABLE, ErrorClass.TRANSIENT, ErrorClass.UNROUTABLE);
    assertThat(outcomes.get(2).failure().getMessage())
        .contains("because of another message", "no exchange 'gone'");
    assertThat(pending.settled()).isTrue();
  }

  @Test
  void aSizeLimitChargesOnlyTheMessagesOverIt() {
    List<Event> events = events(2);
    PendingConfirms pending = new PendingConfirms(events);
    pending.route(0, "orders", 100);
    pending.route(1, "orders", 5000);
    pending.published(1, 0);
    pending.published(2, 1);

    pending.channelClosed(
        channelClosed(
            406,
            "PRECONDITION_FAILED - message size 5000 is larger than configured max size 1024"));

    assertThat(classes(pending.outcomes(TIMEOUT, false)))
        .containsExactly(ErrorClass.TRANSIENT, ErrorClass.RECORD_TOO_LARGE);
  }

  @Test
  void aTagRegisteredAfterTheChannelClosedFailsAtOnce() {
    List<Event> events = events(1);
    PendingConfirms pending = new PendingConfirms(events);
    pending.route(0, "orders", 10);
    pending.channelClosed(channelClosed(541, "INTERNAL_ERROR"));

    pending.published(1, 0);

    assertThat(pending.completed(0)).isTrue();
    assertThat(pending.settled()).isTrue();
    assertThat(classes(pending.outcomes(TIMEOUT, false))).containsExactly(ErrorClass.TRANSIENT);
  }

  @Test
  void unansweredEventsAreTimeoutsSayingWhy() {
    PendingConfirms pending = published(events(1), "x", 10);

    assertThat(pending.outcomes(TIMEOUT, true).get(0).failure().getMessage())
        .contains("TIMEOUT", "interrupted while publishing");
  }
}
