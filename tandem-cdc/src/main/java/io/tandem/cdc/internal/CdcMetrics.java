package io.tandem.cdc.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.ErrorClass;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * What a CDC relay counts as it goes (published events, heartbeats the stream carried, streamed
 * rows the table lacks, failures) as Micrometer meters tagged with the slot, and the figures its
 * status and its heartbeat row report. Lag and backlog are {@link SlotMonitor}'s. Thread-safe.
 */
public final class CdcMetrics {
  private final MeterRegistry meters;
  private final String slot;
  private final Counter publishedCounter;
  private final Counter heartbeatCounter;
  private final Counter notInTableCounter;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong publishedSinceBeat = new AtomicLong();
  private final AtomicReference<Instant> lastPublishedAt = new AtomicReference<>();
  private final AtomicReference<Instant> lastHeartbeatAt = new AtomicReference<>();

  public CdcMetrics(MeterRegistry meters, String slot, BooleanSupplier running) {
    this.meters = meters;
    this.slot = slot;
    this.publishedCounter =
        Counter.builder("tandem.cdc.published")
            .description("events the broker acknowledged")
            .tag("slot", slot)
            .register(meters);
    this.heartbeatCounter =
        Counter.builder("tandem.cdc.heartbeats")
            .description("heartbeats the change stream carried")
            .tag("slot", slot)
            .register(meters);
    this.notInTableCounter =
        Counter.builder("tandem.cdc.not.in.table")
            .description(
                "streamed outbox rows the table lacks (rolled-back XA branches), not published")
            .tag("slot", slot)
            .register(meters);
    Gauge.builder(
            "tandem.cdc.last.published.timestamp",
            lastPublishedAt,
            r -> r.get() == null ? Double.NaN : r.get().toEpochMilli() / 1000.0)
        .description("when the broker last acknowledged an event (epoch seconds)")
        .baseUnit("seconds")
        .tag("slot", slot)
        .register(meters);
    Gauge.builder("tandem.cdc.running", () -> running.getAsBoolean() ? 1 : 0)
        .description("1 while the engine runs")
        .tag("slot", slot)
        .register(meters);
  }

  /** {@code count} events acknowledged now. */
  public void published(int count) {
    published.addAndGet(count);
    publishedSinceBeat.addAndGet(count);
    publishedCounter.increment(count);
    lastPublishedAt.set(Instant.now());
  }

  public void heartbeat() {
    heartbeatCounter.increment();
    lastHeartbeatAt.set(Instant.now());
  }

  public void notInTable() {
    notInTableCounter.increment();
  }

  public void failure(ErrorClass errorClass) {
    meters
        .counter("tandem.cdc.failures", "slot", slot, "error_class", errorClass.name())
        .increment();
  }

  public long published() {
    return published.get();
  }

  /** Events acknowledged since the last call (for the relay's heartbeat row). */
  public long takePublishedSinceBeat() {
    return publishedSinceBeat.getAndSet(0);
  }

  public Optional<Instant> lastPublishedAt() {
    return Optional.ofNullable(lastPublishedAt.get());
  }

  public Optional<Instant> lastHeartbeatAt() {
    return Optional.ofNullable(lastHeartbeatAt.get());
  }
}
