package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the consumer benchmark's steady latency goes, per event on this JVM's monotonic clock: the
 * publisher's hand-over to the producer, the broker's acknowledgement, the source's hand-over of
 * the message to the consumer runner, and the consumer's commit. Thread-safe.
 */
final class LatencyBreakdown {
  private final Map<UUID, Long> sent = new ConcurrentHashMap<>();
  private final Map<UUID, Long> acked = new ConcurrentHashMap<>();
  private final Map<UUID, Long> delivered = new ConcurrentHashMap<>();
  private final Map<UUID, Long> committed = new ConcurrentHashMap<>();

  void sent(List<Event> events, long sentNanos, long ackedNanos) {
    for (Event e : events) {
      sent.put(e.eventId(), sentNanos);
      acked.put(e.eventId(), ackedNanos);
    }
  }

  void committed(Event e) {
    committed.put(e.eventId(), System.nanoTime());
  }

  /** {@code source}, noting when each message is handed to the sink. */
  MessageSource wrap(MessageSource source) {
    return new MessageSource() {
      @Override
      public String transport() {
        return source.transport();
      }

      @Override
      public String describe() {
        return source.describe();
      }

      @Override
      public void start(io.tandem.core.spi.MessageSink sink) {
        source.start(
            (InboundMessage m) -> {
              long now = System.nanoTime();
              try {
                delivered.put(m.decode().eventId(), now);
              } catch (RuntimeException notAnEvent) {
                // the processor dead-letters it; nothing to time
              }
              return sink.accept(m);
            });
      }

      @Override
      public boolean isRunning() {
        return source.isRunning();
      }

      @Override
      public OptionalLong lag() {
        return source.lag();
      }

      @Override
      public void close() {
        source.close();
      }
    };
  }

  /** p50/p99 ms of each segment over the committed events that were sent while noting. */
  String summary() {
    List<Double> ack = new ArrayList<>();
    List<Double> delivery = new ArrayList<>();
    List<Double> apply = new ArrayList<>();
    List<Double> total = new ArrayList<>();
    committed.forEach(
        (id, done) -> {
          Long s = sent.get(id);
          Long d = delivered.get(id);
          if (s != null && d != null) {
            ack.add((acked.get(id) - s) / 1e6);
            delivery.add((d - s) / 1e6);
            apply.add((done - d) / 1e6);
            total.add((done - s) / 1e6);
          }
        });
    return String.format(
        Locale.ROOT,
        "%d events, p50/p99 ms: hand-over to broker ack %s, hand-over to delivery to the runner"
            + " %s, delivery to commit %s, total %s",
        total.size(),
        pair(ack),
        pair(delivery),
        pair(apply),
        pair(total));
  }

  private static String pair(List<Double> values) {
    Percentiles p = new Percentiles(values);
    return String.format(Locale.ROOT, "%.1f/%.1f", p.at(0.50), p.at(0.99));
  }
}
