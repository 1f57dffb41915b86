package io.tandem.outbox;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox's health as gauges, refreshed from {@link OutboxOperations#status()} on a
 * schedule: a backlog must never grow unnoticed.
 *
 * <ul>
 *   <li>{@code tandem.outbox.pending} — events waiting to be published;
 *   <li>{@code tandem.outbox.oldest.pending.age} (seconds) — age of the oldest one: alert on this,
 *       not only on the count;
 *   <li>{@code tandem.outbox.quarantined} — events waiting for an operator;
 *   <li>{@code tandem.outbox.skipped} — events an operator skipped;
 *   <li>{@code tandem.outbox.partitions.unowned} and {@code tandem.outbox.partitions.stranded} —
 *       partitions without a live lease, and those of them with events waiting;
 *   <li>{@code tandem.outbox.relays} — relay instances that heartbeat.
 * </ul>
 *
 * <p>A refresh that fails is logged and the previous values stay. Defaults: refresh every {@value
 * #DEFAULT_REFRESH_SECONDS} s on one daemon thread; {@link #close()} stops it.
 */
public final class OutboxMetrics implements AutoCloseable {
  public static final long DEFAULT_REFRESH_SECONDS = 5;
  private static final Logger log = LoggerFactory.getLogger(OutboxMetrics.class);

  private final OutboxOperations operations;
  private final AtomicReference<OutboxStatus> last = new AtomicReference<>();
  private final ScheduledExecutorService scheduler;

  private OutboxMetrics(OutboxOperations operations, MeterRegistry registry, Duration refresh) {
    this.operations = operations;
    gauge(registry, "tandem.outbox.pending", "Events waiting to be published", s -> s.pending());
    gauge(
        registry,
        "tandem.outbox.oldest.pending.age",
        "Age in seconds of the oldest event waiting to be published",
        s -> s.oldestPendingAge().toMillis() / 1000.0);
    gauge(
        registry,
        "tandem.outbox.quarantined",
        "Events waiting for an operator",
        s -> s.quarantined());
    gauge(
        registry,
        "tandem.outbox.skipped",
        "Events an operator skipped (kept until retention removes them)",
        s -> s.skipped());
    gauge(
        registry,
        "tandem.outbox.partitions.unowned",
        "Relay partitions without a live lease",
        s -> s.unowned().size());
    gauge(
        registry,
        "tandem.outbox.partitions.stranded",
        "Relay partitions without a live lease that have events waiting",
        s -> s.stranded().size());
    gauge(
        registry,
        "tandem.outbox.relays",
        "Relay instances that heartbeat",
        s -> s.instances().size());
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-outbox-metrics");
              t.setDaemon(true);
              return t;
            });
    refresh();
    scheduler.scheduleWithFixedDelay(
        this::refresh, refresh.toMillis(), refresh.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Registers the gauges and starts refreshing them every {@code refresh}. */
  public static OutboxMetrics register(
      MeterRegistry registry, OutboxOperations operations, Duration refresh) {
    if (refresh == null || refresh.isNegative() || refresh.isZero()) {
      throw new IllegalArgumentException("refresh must be a positive duration, was " + refresh);
    }
    return new OutboxMetrics(operations, registry, refresh);
  }

  /** The status read by the last successful refresh, or null before the first one. */
  public OutboxStatus lastStatus() {
    return last.get();
  }

  private void refresh() {
    try {
      last.set(operations.status());
    } catch (RuntimeException e) {
      log.warn("refreshing outbox metrics failed; keeping the previous values: {}", e.getMessage());
    }
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String description,
      java.util.function.ToDoubleFunction<OutboxStatus> value) {
    Gauge.builder(
            name, last, ref -> ref.get() == null ? Double.NaN : value.applyAsDouble(ref.get()))
        .description(description)
        .register(registry);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
