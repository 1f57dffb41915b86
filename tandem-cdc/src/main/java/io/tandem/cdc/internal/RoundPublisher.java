package io.tandem.cdc.internal;

import io.tandem.core.ErrorClass;
import io.tandem.core.ErrorSummary;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.Tracing;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.core.spi.TransportReplies;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Publishes events in rounds, as the polling relay does: the first event of every aggregate, then
 * the next of each aggregate whose previous one was acknowledged. No event is sent before its
 * predecessor's acknowledgement, and a failure stops only its own aggregate.
 */
public final class RoundPublisher {
  private final Transport transport;
  private final Duration timeout;
  private final Tracing tracing;

  public RoundPublisher(Transport transport, Duration timeout) {
    this(transport, timeout, Tracing.get());
  }

  RoundPublisher(Transport transport, Duration timeout, Tracing tracing) {
    this.transport = transport;
    this.timeout = timeout;
    this.tracing = tracing;
  }

  /** An event to publish, from outbox row {@code rowId}, as attempt number {@code attempt}. */
  public record Item(long rowId, Aggregate aggregate, Event event, int attempt) {}

  /** The failed item of an aggregate; its later items were not sent. */
  public record Failed(Item item, PublishException error) {}

  /**
   * What happened: acknowledged rows in acknowledgement order, and per failed aggregate its
   * failure. {@code everythingFailed} when not one event of the first round was acknowledged.
   */
  public record Result(List<Item> acknowledged, List<Failed> failed, boolean everythingFailed) {}

  public Result publish(List<Item> items) {
    Map<Aggregate, Deque<Item>> lanes = new LinkedHashMap<>();
    for (Item item : items) {
      lanes.computeIfAbsent(item.aggregate(), a -> new ArrayDeque<>()).add(item);
    }
    List<Item> acknowledged = new ArrayList<>(items.size());
    List<Failed> failed = new ArrayList<>();
    boolean firstRound = true;
    boolean everythingFailed = false;
    while (!lanes.isEmpty()) {
      List<Item> round = new ArrayList<>(lanes.size());
      lanes.values().forEach(lane -> round.add(lane.peek()));
      List<PublishOutcome> outcomes = send(round);
      int acked = 0;
      for (int i = 0; i < round.size(); i++) {
        Item item = round.get(i);
        PublishOutcome outcome = outcomes.get(i);
        if (outcome.acknowledged()) {
          acked++;
          acknowledged.add(item);
          Deque<Item> lane = lanes.get(item.aggregate());
          lane.poll();
          if (lane.isEmpty()) {
            lanes.remove(item.aggregate());
          }
        } else {
          failed.add(new Failed(item, outcome.failure()));
          lanes.remove(item.aggregate());
        }
      }
      if (firstRound) {
        everythingFailed = acked == 0;
        firstRound = false;
      }
    }
    return new Result(acknowledged, failed, everythingFailed);
  }

  private List<PublishOutcome> send(List<Item> round) {
    List<Event> events = round.stream().map(Item::event).toList();
    // one span per broker call, linked to each event's own trace, as the polling relay makes
    try (Tracing.Span span = tracing.startBatch("publish " + transport.name(), events)) {
      List<PublishOutcome> outcomes = transport.publish(events, timeout);
      span.outcome(
          outcomes.stream().filter(PublishOutcome::acknowledged).count()
              + " of "
              + events.size()
              + " acknowledged");
      TransportReplies.check(
          transport.name(), events.stream().map(Event::eventId).toList(), outcomes);
      return outcomes;
    } catch (RuntimeException e) {
      // a transport that throws instead of reporting: every event of the round failed, retriably
      PublishException failure =
          new PublishException(
              ErrorClass.TRANSIENT,
              "transport " + transport.name() + " failed: " + ErrorSummary.of(e),
              e);
      return events.stream().map(ev -> PublishOutcome.failed(ev.eventId(), failure)).toList();
    }
  }
}
