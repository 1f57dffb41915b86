package io.tandem.kafka.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a consumer did, as plain counters and, when a registry is given, as Micrometer counters
 * {@code tandem.consumer.handled}, {@code tandem.consumer.failed.attempts} and {@code
 * tandem.consumer.invalid}, tagged {@code transport=kafka} and {@code group=<group id>}.
 */
public final class ConsumerCounters {
  public static final String HANDLED = "tandem.consumer.handled";
  public static final String FAILED_ATTEMPTS = "tandem.consumer.failed.attempts";
  public static final String INVALID = "tandem.consumer.invalid";

  private final AtomicLong handled = new AtomicLong();
  private final AtomicLong failedAttempts = new AtomicLong();
  private final AtomicLong invalid = new AtomicLong();
  private final Counter handledMeter;
  private final Counter failedMeter;
  private final Counter invalidMeter;

  /**
   * @param registry may be null: then only the plain counters count
   */
  public ConsumerCounters(MeterRegistry registry, String groupId) {
    this.handledMeter = counter(registry, HANDLED, "events the handler applied", groupId);
    this.failedMeter = counter(registry, FAILED_ATTEMPTS, "handler calls that threw", groupId);
    this.invalidMeter = counter(registry, INVALID, "records skipped as invalid", groupId);
  }

  public void handled() {
    handled.incrementAndGet();
    increment(handledMeter);
  }

  public void failedAttempt() {
    failedAttempts.incrementAndGet();
    increment(failedMeter);
  }

  public void invalid() {
    invalid.incrementAndGet();
    increment(invalidMeter);
  }

  public long handledCount() {
    return handled.get();
  }

  public long failedAttempts() {
    return failedAttempts.get();
  }

  public long invalidCount() {
    return invalid.get();
  }

  private static Counter counter(
      MeterRegistry registry, String name, String description, String groupId) {
    if (registry == null) {
      return null;
    }
    return Counter.builder(name)
        .description(description)
        .tag("transport", "kafka")
        .tag("group", groupId)
        .register(registry);
  }

  private static void increment(Counter counter) {
    if (counter != null) {
      counter.increment();
    }
  }
}
