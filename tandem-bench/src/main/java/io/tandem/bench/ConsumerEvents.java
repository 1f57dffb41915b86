package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.kafka.KafkaTransport;
import io.tandem.kafka.TopicRouter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The events the consumer benchmarks publish: deposits over many aggregates in version-major order
 * (version 1 of every aggregate, then version 2, ...), either all at once (a backlog) or at a
 * steady rate. Each event's {@code occurredAt} is the instant it was built, just before it is
 * handed to the producer, so that a consumer can tell how long the event took from the producer to
 * its own commit (both ends read the machine's wall clock).
 */
final class ConsumerEvents {
  static final String BACKLOG_TYPE = "Deposited";
  static final String STEADY_TYPE = "SteadyDeposited";
  static final int AGGREGATES = 2_000;
  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(60);

  private ConsumerEvents() {}

  static KafkaTransport transport(String bootstrap, Map<String, String> kafkaClient, String topic) {
    return KafkaTransport.builder()
        .bootstrapServers(bootstrap)
        .clientProperties(kafkaClient)
        .source("/tandem/bench")
        .topicRouter(TopicRouter.fixed(topic))
        .build();
  }

  /** Event {@code i} of the sequence whose aggregate ids start with {@code prefix}. */
  static Event deposit(String prefix, long i, String eventType) {
    return Event.builder()
        .aggregate("Account", prefix + (i % AGGREGATES), i / AGGREGATES + 1)
        .eventType(eventType)
        .payload(
            "{\"accountId\":\""
                + prefix
                + (i % AGGREGATES)
                + "\",\"amountCents\":"
                + (i % 10_000)
                + ",\"currency\":\"EUR\"}")
        .build();
  }

  /** Publishes events {@code 0 .. count-1} of the {@code acc-} sequence, 1,000 per request. */
  static void backlog(KafkaTransport kafka, int count) {
    List<Event> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(deposit("acc-", i, BACKLOG_TYPE));
      if (batch.size() == 1_000 || i == count - 1) {
        publish(kafka, batch);
        batch.clear();
      }
    }
  }

  /**
   * Publishes {@code rate} events per second for {@code window}, from event {@code first} of the
   * {@code prefix} sequence: whenever events are due, the due ones in one request (waiting for its
   * acknowledgement), so that the offered rate holds whatever one request costs. Returns the index
   * after the last one published.
   */
  static long steady(
      KafkaTransport kafka, String prefix, long first, int rate, Duration window, String type)
      throws InterruptedException {
    return steady(kafka, prefix, first, rate, window, type, null);
  }

  /** As {@link #steady}; with {@code breakdown}, each request's hand-over and ack are noted. */
  static long steady(
      KafkaTransport kafka,
      String prefix,
      long first,
      int rate,
      Duration window,
      String type,
      LatencyBreakdown breakdown)
      throws InterruptedException {
    long total = rate * window.toSeconds();
    long start = System.nanoTime();
    long sent = 0;
    List<Event> due = new ArrayList<>();
    while (sent < total) {
      long now = System.nanoTime();
      long dueCount = Math.min(total, (long) ((now - start) / 1e9 * rate) + 1);
      if (dueCount <= sent) {
        long next = start + (long) (sent * 1e9 / rate);
        TimeUnit.NANOSECONDS.sleep(Math.max(1, next - now));
        continue;
      }
      for (long i = sent; i < dueCount; i++) {
        due.add(deposit(prefix, first + i, type));
      }
      long handedOver = System.nanoTime();
      publish(kafka, due);
      if (breakdown != null) {
        breakdown.sent(due, handedOver, System.nanoTime());
      }
      sent = dueCount;
      due.clear();
    }
    return first + total;
  }

  private static void publish(KafkaTransport kafka, List<Event> events) {
    for (PublishOutcome outcome : kafka.publish(events, ACK_TIMEOUT)) {
      if (!outcome.acknowledged()) {
        throw new IllegalStateException(
            "publishing the benchmark's events failed", outcome.failure());
      }
    }
  }
}
