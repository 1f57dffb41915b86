package io.tandem.inbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The processor's {@code tandem.consumer.*} counters and gauges, tagged {@code consumer}. */
final class ConsumerMetrics {
  final Counter applied;
  final Counter duplicates;
  final Counter parked;
  final Counter skipped;
  final Counter failedAttempts;
  final Counter storeFailures;
  final Counter versionConflicts;
  final AtomicLong deadLettered = new AtomicLong();
  final AtomicLong parkedNow = new AtomicLong();
  final AtomicLong overdueGaps = new AtomicLong();
  final AtomicLong oldestGapSeconds = new AtomicLong();
  final AtomicLong deadLettersNow = new AtomicLong();
  private final MeterRegistry meters;
  private final String consumer;
  private final Map<DeadLetterReason, Counter> deadLetterCounters = new HashMap<>();

  ConsumerMetrics(MeterRegistry meters, String consumer) {
    this.meters = meters;
    this.consumer = consumer;
    applied = counter("tandem.consumer.applied", "Events whose handler ran and committed");
    duplicates = counter("tandem.consumer.duplicates", "Deliveries recognised as duplicates");
    parked =
        counter(
            "tandem.consumer.parkings",
            "Events parked ahead of a gap (the gauge tandem.consumer.parked: parked now)");
    skipped = counter("tandem.consumer.skipped", "Events no handler takes, skipped by policy");
    failedAttempts = counter("tandem.consumer.failed.attempts", "Handler attempts that failed");
    storeFailures =
        counter(
            "tandem.consumer.store.failures",
            "Transactions that failed outside the handlers (commit, the consumer's statements),"
                + " retried without using up attempts");
    versionConflicts =
        counter(
            "tandem.consumer.version.conflicts",
            "Events whose version was taken by another event, dead-lettered");
    gauge("tandem.consumer.parked", "Events parked now", parkedNow);
    gauge("tandem.consumer.gaps.overdue", "Aggregates waiting past the gap alert", overdueGaps);
    gauge("tandem.consumer.gap.oldest.seconds", "Age of the oldest parked event", oldestGapSeconds);
    gauge("tandem.consumer.dead_letters", "Open dead letters", deadLettersNow);
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name)
        .description(description)
        .tag("consumer", consumer)
        .register(meters);
  }

  private void gauge(String name, String description, AtomicLong value) {
    Gauge.builder(name, value, AtomicLong::get)
        .description(description)
        .tag("consumer", consumer)
        .register(meters);
  }

  /** Counts a committed outcome (dead letters are counted with their reason). */
  void count(Outcome outcome) {
    switch (outcome) {
      case APPLIED -> applied.increment();
      case DUPLICATE -> duplicates.increment();
      case PARKED -> parked.increment();
      case SKIPPED -> skipped.increment();
      default -> {}
    }
  }

  synchronized void deadLettered(DeadLetterReason reason) {
    deadLettered.incrementAndGet();
    if (reason == DeadLetterReason.VERSION_CONFLICT) {
      versionConflicts.increment();
    }
    deadLetterCounters
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder("tandem.consumer.dead_lettered")
                    .description("Messages sent to the dead-letter table")
                    .tag("consumer", consumer)
                    .tag("reason", r.name())
                    .register(meters))
        .increment();
  }
}
