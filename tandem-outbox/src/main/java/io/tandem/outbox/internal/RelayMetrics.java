package io.tandem.outbox.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tandem.core.ErrorClass;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The relay's meters ({@code tandem.relay.*}) and the counts and last error its status shows.
 * Thread-safe: the worker, publisher and recorder threads all report here.
 */
public final class RelayMetrics {
  private final MeterRegistry meters;
  private final Counter publishedCounter;
  private final Timer batchTimer;
  private final Timer publishLatency;
  private final Counter attempts;
  private final Counter leaseRenewals;
  private final Counter leaseAcquisitions;
  private final Counter leaseExpiries;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile String lastError;

  public RelayMetrics(MeterRegistry meters, String relayId, String transport) {
    this.meters = meters;
    this.publishedCounter =
        Counter.builder("tandem.relay.published")
            .description("Events acknowledged by the broker and marked published")
            .tag("transport", transport)
            .register(meters);
    this.batchTimer =
        Timer.builder("tandem.relay.batch")
            .description("Read, publish and record of one batch")
            .tag("transport", transport)
            .register(meters);
    this.publishLatency =
        Timer.builder("tandem.relay.publish.latency")
            .description(
                "From an event's occurred_at (set as it is appended, before its commit) to the"
                    + " broker's acknowledgement")
            .tag("transport", transport)
            .publishPercentileHistogram()
            .register(meters);
    this.attempts =
        Counter.builder("tandem.relay.attempts")
            .description("Events handed to the broker, retries included")
            .tag("transport", transport)
            .register(meters);
    this.leaseRenewals =
        leaseCounter(
            "tandem.relay.lease.renewals",
            "Partition leases this relay renewed before they ran out",
            relayId);
    this.leaseAcquisitions =
        leaseCounter(
            "tandem.relay.lease.acquisitions",
            "Partitions this relay took (free, expired or given back)",
            relayId);
    this.leaseExpiries =
        leaseCounter(
            "tandem.relay.lease.expiries",
            "Partition leases of this relay that ran out before it renewed them",
            relayId);
  }

  private Counter leaseCounter(String name, String description, String relayId) {
    return Counter.builder(name).description(description).tag("relay", relayId).register(meters);
  }

  public MeterRegistry registry() {
    return meters;
  }

  /** Starts timing a batch's publish, to be stopped with {@link #batchPublished}. */
  public Timer.Sample startBatch() {
    return Timer.start(meters);
  }

  /** Stops the batch timer; returns the nanoseconds it measured. */
  public long batchPublished(Timer.Sample sample) {
    return sample.stop(batchTimer);
  }

  public void attempted(int events) {
    attempts.increment(events);
  }

  /** The time from an event's occurrence to its acknowledgement (negative skew counts as 0). */
  public void acknowledgedAfter(Duration latency) {
    publishLatency.record(latency.isNegative() ? Duration.ZERO : latency);
  }

  public void failure(ErrorClass errorClass, boolean quarantined) {
    meters.counter("tandem.relay.failures", "error_class", errorClass.name()).increment();
    if (quarantined) {
      meters.counter("tandem.relay.quarantined", "error_class", errorClass.name()).increment();
    }
  }

  /** A batch's outcome was recorded: {@code marked} rows published, {@code failures} failed. */
  public void recorded(int marked, int failures) {
    published.addAndGet(marked);
    publishedCounter.increment(marked);
    failed.addAndGet(failures);
  }

  public void leaseRenewed() {
    leaseRenewals.increment();
  }

  public void leaseAcquired() {
    leaseAcquisitions.increment();
  }

  public void leasesExpired(int partitions) {
    leaseExpiries.increment(partitions);
  }

  public long published() {
    return published.get();
  }

  public long failed() {
    return failed.get();
  }

  /** The summary of the last error, null once a batch was recorded in full again. */
  public String lastError() {
    return lastError;
  }

  public void lastError(String summary) {
    lastError = summary;
  }
}
