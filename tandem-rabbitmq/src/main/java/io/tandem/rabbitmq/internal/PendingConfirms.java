package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.ShutdownSignalException;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.spi.PublishOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The confirms one batch waits for, keyed by delivery tag. Filled in by the channel's listeners (on
 * the client's I/O thread) and read by the publishing thread once every event completed or the
 * deadline passed.
 *
 * <p>Each event completes once; the first answer wins. That is what makes a mandatory message that
 * the broker returned as unroutable fail even though RabbitMQ confirms it afterwards: on a channel,
 * {@code basic.return} always precedes the {@code basic.ack} of the same message.
 */
final class PendingConfirms {
  private static final Object ACKNOWLEDGED = new Object();

  private final List<Event> events;
  private final String[] exchanges;
  private final int[] bodySizes;
  private final AtomicReferenceArray<Object> results;
  private final CountDownLatch remaining;
  private final ConcurrentSkipListMap<Long, Integer> unconfirmed = new ConcurrentSkipListMap<>();
  private volatile ShutdownSignalException closedBy;

  PendingConfirms(List<Event> events) {
    this.events = events;
    this.exchanges = new String[events.size()];
    this.bodySizes = new int[events.size()];
    this.results = new AtomicReferenceArray<>(events.size());
    this.remaining = new CountDownLatch(events.size());
  }

  int size() {
    return events.size();
  }

  Event event(int index) {
    return events.get(index);
  }

  /** Records where event {@code index} goes; set before it is published. */
  void route(int index, String exchange, int bodySize) {
    exchanges[index] = exchange;
    bodySizes[index] = bodySize;
  }

  String exchange(int index) {
    return exchanges[index];
  }

  /** Registers event {@code index} under {@code tag}; called just before it is published. */
  void published(long tag, int index) {
    unconfirmed.put(tag, index);
    ShutdownSignalException closed = closedBy;
    if (closed != null) {
      channelClosed(closed); // the channel closed while we were registering
    }
  }

  /** Withdraws {@code tag} whose publish threw: the broker never saw it. */
  void unpublished(long tag) {
    unconfirmed.remove(tag);
  }

  /** {@code basic.ack}: the broker took responsibility for the message(s). */
  void acknowledge(long tag, boolean multiple) {
    for (int index : take(tag, multiple)) {
      complete(index, ACKNOWLEDGED);
    }
  }

  /** {@code basic.nack}: the broker could not take the message(s); a later attempt may succeed. */
  void reject(long tag, boolean multiple) {
    for (int index : take(tag, multiple)) {
      complete(
          index,
          failure(
              index,
              ErrorClass.TRANSIENT,
              "the broker refused the message (basic.nack): a queue could not accept it",
              null));
    }
  }

  /**
   * {@code basic.return}: a mandatory message could not be routed to any queue. It is matched by
   * its {@code message_id} (the event id) against the earliest unconfirmed message of this batch;
   * returns arrive in publishing order.
   */
  void returned(int replyCode, String replyText, String messageId) {
    for (Map.Entry<Long, Integer> entry : unconfirmed.entrySet()) {
      int index = entry.getValue();
      if (results.get(index) == null && events.get(index).eventId().toString().equals(messageId)) {
        complete(
            index,
            failure(
                index,
                ErrorClass.UNROUTABLE,
                "returned by the broker ("
                    + replyCode
                    + " "
                    + replyText
                    + "): no queue is bound to the exchange for this routing key",
                null));
        return;
      }
    }
  }

  /** The channel closed: every unconfirmed event fails, charged to it only if it caused it. */
  void channelClosed(ShutdownSignalException sse) {
    closedBy = sse;
    for (Long tag : unconfirmed.keySet()) {
      Integer index = unconfirmed.remove(tag);
      if (index != null) {
        complete(index, closedFailure(index, sse));
      }
    }
  }

  /** Fails an event that was not published. */
  void fail(int index, ErrorClass errorClass, String why, Throwable cause) {
    complete(index, failure(index, errorClass, why, cause));
  }

  /** Fails an event that was not published because publishing on the channel failed. */
  void failUnsent(int index, Throwable cause) {
    Optional<ShutdownSignalException> sse = RabbitErrors.shutdownOf(cause);
    if (sse.isPresent()) {
      complete(index, closedFailure(index, sse.get()));
    } else {
      ErrorClass errorClass = RabbitErrors.classify(cause);
      complete(index, failure(index, errorClass, "publishing failed: " + cause, cause));
    }
  }

  /** Whether every published message was confirmed or nacked (or its channel closed). */
  boolean settled() {
    return unconfirmed.isEmpty();
  }

  boolean allCompleted() {
    return remaining.getCount() == 0;
  }

  boolean completed(int index) {
    return results.get(index) != null;
  }

  /** Waits until every event completed or {@code deadlineNanos} (a {@link System#nanoTime()}). */
  void await(long deadlineNanos) throws InterruptedException {
    remaining.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  /** One outcome per event, in order; an event not completed now is a TIMEOUT. */
  List<PublishOutcome> outcomes(Duration timeout, boolean interrupted) {
    List<PublishOutcome> outcomes = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      Object result = results.get(i);
      if (result == ACKNOWLEDGED) {
        outcomes.add(PublishOutcome.acknowledged(events.get(i).eventId()));
      } else if (result instanceof PublishException failure) {
        outcomes.add(PublishOutcome.failed(events.get(i).eventId(), failure));
      } else {
        String why =
            interrupted ? "interrupted while publishing" : "not confirmed within " + timeout;
        outcomes.add(
            PublishOutcome.failed(
                events.get(i).eventId(), failure(i, ErrorClass.TIMEOUT, why, null)));
      }
    }
    return outcomes;
  }

  private List<Integer> take(long tag, boolean multiple) {
    if (!multiple) {
      Integer index = unconfirmed.remove(tag);
      return index == null ? List.of() : List.of(index);
    }
    ConcurrentNavigableMap<Long, Integer> upTo = unconfirmed.headMap(tag, true);
    List<Integer> taken = new ArrayList<>(upTo.size());
    for (Long t : upTo.keySet()) {
      Integer index = unconfirmed.remove(t);
      if (index != null) {
        taken.add(index);
      }
    }
    return taken;
  }

  private PublishException closedFailure(int index, ShutdownSignalException sse) {
    ErrorClass errorClass = RabbitErrors.classify(sse);
    String reply = RabbitErrors.replyText(sse);
    if (!errorClass.retriable() && !concerns(index, sse)) {
      return failure(
          index,
          ErrorClass.TRANSIENT,
          "not confirmed: the broker closed the channel because of another message (" + reply + ")",
          sse);
    }
    return failure(index, errorClass, "the channel was closed: " + reply, sse);
  }

  /** Whether the broker's close text points at this event (its exchange, or its size). */
  private boolean concerns(int index, ShutdownSignalException sse) {
    Optional<String> exchange = RabbitErrors.exchangeNamed(sse);
    if (exchange.isPresent() && !exchange.get().equals(exchanges[index])) {
      return false;
    }
    OptionalLong maxSize = RabbitErrors.maxMessageSize(sse);
    return maxSize.isEmpty() || bodySizes[index] > maxSize.getAsLong();
  }

  private PublishException failure(int index, ErrorClass errorClass, String why, Throwable cause) {
    Event event = events.get(index);
    String where =
        exchanges[index] == null
            ? null
            : "exchange '" + exchanges[index] + "' (routing key '" + event.aggregateId() + "')";
    return PublishException.forEvent("rabbitmq", errorClass, event.eventId(), where, why, cause);
  }

  private void complete(int index, Object result) {
    if (results.compareAndSet(index, null, result)) {
      remaining.countDown();
    }
  }
}
