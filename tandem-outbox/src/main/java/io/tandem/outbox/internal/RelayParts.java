package io.tandem.outbox.internal;

import io.micrometer.core.instrument.Gauge;
import io.tandem.outbox.RelayClock;

/**
 * The parts of one relay, wired from its settings: what {@code OutboxRelay} delegates to. Each
 * part's Javadoc says which threads use it.
 */
public record RelayParts(
    RelaySettings settings,
    RelayLifecycle lifecycle,
    RelayMetrics metrics,
    RelayHealth health,
    LeaseScheduler leases,
    WakeUpPolicy wakeUps,
    WakeSignal signal,
    RelayExecutors executors,
    BatchPipeline pipeline,
    PublishedMarks marks,
    RelayCycle cycle) {

  /** Wires the parts of a relay with {@code settings} (all set: built by the builder). */
  public static RelayParts of(RelaySettings s, String host) {
    RelayClock clock = s.clock();
    RelayLifecycle lifecycle = new RelayLifecycle(s.relayId());
    RelayMetrics metrics = new RelayMetrics(s.meters(), s.relayId(), s.transport().name());
    RelayHealth health = new RelayHealth(s.relayId(), s.unhealthyAfter(), s.meters(), clock);
    OutboxStore store = new OutboxStore(s.dataSource(), s.dialect());
    PartitionLeases partitionLeases =
        new PartitionLeases(s.dataSource(), s.dialect(), s.relayId(), host, s.lease(), clock);
    LeaseScheduler leases =
        new LeaseScheduler(
            partitionLeases, s.relayId(), s.heartbeat(), s.pollInterval(), metrics, clock);
    RetryLooks retryLooks = new RetryLooks(clock.nanoTime());
    WakeUpPolicy wakeUps =
        new WakeUpPolicy(s.pollInterval(), s.lingerWhenBusy(), retryLooks, clock);
    RelayExecutors executors = new RelayExecutors(s);
    BatchPipeline pipeline = new BatchPipeline(executors.publishers(), lifecycle);
    PublishedMarks marks =
        new PublishedMarks(
            store, s.relayId(), health, metrics, retryLooks, clock, executors.recorder());
    FailurePolicy failures = new FailurePolicy(s.relayId(), s.retryPolicy(), metrics);
    OrderedPublisher publisher =
        new OrderedPublisher(s.transport(), s.publishTimeout(), failures, metrics, clock);
    BatchPublication publication =
        new BatchPublication(s.relayId(), publisher, marks, s.faults(), health, metrics, lifecycle);
    UndecodableRows undecodable = new UndecodableRows(store, s.relayId(), s.meters());
    RelayCycle cycle =
        new RelayCycle(
            s, store, leases, undecodable, pipeline, marks, publication, health, lifecycle);
    Gauge.builder("tandem.relay.partitions.owned", leases, l -> l.owned().size())
        .description("Partitions this relay holds a lease on")
        .tag("relay", s.relayId())
        .register(s.meters());
    return new RelayParts(
        s,
        lifecycle,
        metrics,
        health,
        leases,
        wakeUps,
        new WakeSignal(),
        executors,
        pipeline,
        marks,
        cycle);
  }

  /** The worker loop of a started relay. */
  public RelayWorker worker() {
    return new RelayWorker(
        settings,
        cycle,
        leases,
        wakeUps,
        signal,
        lifecycle,
        executors,
        health,
        metrics,
        () -> {
          pipeline.abandon();
          marks.abandon();
        });
  }

  /** Whether leases are currently held and valid. */
  public boolean holdsLeases() {
    return leases.owned().validAt(settings.clock().nanoTime());
  }
}
