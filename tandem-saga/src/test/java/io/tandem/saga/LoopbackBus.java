package io.tandem.saga;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.inbox.InboxProcessor;
import io.tandem.testkit.TestEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A broker in the test's memory for the saga engine's tests: events published by the relays are
 * delivered to the processor registered for their aggregate type, on one thread per type, in
 * publish order. It can deliver everything twice and hold back chosen messages until released (a
 * lost or late command).
 */
final class LoopbackBus implements Transport {
  private final Map<String, InboxProcessor> routes = new ConcurrentHashMap<>();
  private final Map<String, ExecutorService> lanes = new ConcurrentHashMap<>();
  private final List<Event> held = new CopyOnWriteArrayList<>();
  volatile boolean duplicateEverything;
  volatile Predicate<Event> hold = e -> false;

  void route(String aggregateType, InboxProcessor processor) {
    routes.put(aggregateType, processor);
  }

  @Override
  public String name() {
    return "loopback";
  }

  @Override
  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    // The relay sends an aggregate's next version only after the previous one's acknowledgement:
    // delivering in list order would hide a relay that does not.
    List<String> repeated = TestEvents.repeatedAggregates(events);
    if (!repeated.isEmpty()) {
      throw new AssertionError("one publish call carried several versions of " + repeated);
    }
    List<PublishOutcome> outcomes = new ArrayList<>();
    for (Event e : events) {
      if (hold.test(e)) {
        held.add(e);
      } else {
        deliver(e);
        if (duplicateEverything) {
          deliver(e);
        }
      }
      outcomes.add(PublishOutcome.acknowledged(e.eventId()));
    }
    return outcomes;
  }

  /** Delivers what was held back, now. */
  void release() {
    List<Event> now = new ArrayList<>(held);
    held.removeAll(now);
    now.forEach(this::deliver);
  }

  /** Delivers the message held back first, now. */
  void releaseFirst() {
    Event first = held.remove(0);
    deliver(first);
  }

  /** Delivers what was held back, now, the last held first. */
  void releaseReversed() {
    List<Event> now = new ArrayList<>(held);
    held.removeAll(now);
    Collections.reverse(now);
    now.forEach(this::deliver);
  }

  int heldCount() {
    return held.size();
  }

  private final Map<String, Queue<Event>> pending = new ConcurrentHashMap<>();

  private void deliver(Event e) {
    InboxProcessor processor = routes.get(e.aggregateType());
    if (processor == null) {
      throw new IllegalStateException("no route for " + e.aggregateType());
    }
    Queue<Event> queue =
        pending.computeIfAbsent(e.aggregateType(), t -> new ConcurrentLinkedQueue<>());
    queue.add(e);
    lanes
        .computeIfAbsent(e.aggregateType(), t -> Executors.newSingleThreadExecutor())
        .execute(
            () -> {
              // what has arrived for this route, in one batch (as a consumer runner's lane does)
              List<InboundMessage> batch = new ArrayList<>();
              for (Event next = queue.poll(); next != null; next = queue.poll()) {
                batch.add(message(next));
              }
              if (batch.isEmpty()) {
                return; // an earlier task took it
              }
              try {
                processor.process(batch);
              } catch (FaultInjector.SimulatedCrash crash) {
                // the consumer "died" after its commit: a broker would redeliver to the group's
                // next member, whose inbox would see a duplicate; the committed work stands
              }
            });
  }

  private static InboundMessage message(Event e) {
    return new InboundMessage() {
      @Override
      public String key() {
        return e.aggregateId();
      }

      @Override
      public String origin() {
        return "loopback " + e.aggregateType() + " " + e.eventId();
      }

      @Override
      public Map<String, String> rawHeaders() {
        return Map.of();
      }

      @Override
      public byte[] rawBody() {
        return e.payload().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      }

      @Override
      public Event decode() {
        return e;
      }

      @Override
      public void acknowledge() {}
    };
  }

  @Override
  public void close() {
    lanes.values().forEach(ExecutorService::shutdownNow);
    for (ExecutorService lane : lanes.values()) {
      try {
        lane.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
