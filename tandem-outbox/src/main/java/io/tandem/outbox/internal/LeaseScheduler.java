package io.tandem.outbox.internal;

import io.tandem.core.ErrorSummary;
import io.tandem.jdbc.Dialect;
import io.tandem.outbox.RelayClock;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the relay coordinates its partitions (heartbeat, renew, rebalance): every heartbeat, sooner
 * while it holds less than its fair share (to pick up what others give back), one error pause after
 * a failed coordination. Counts renewals, acquisitions and leases that ran out before a renewal.
 *
 * <p>Threads: driven by the thread that runs the cycles; {@link #sinceLastRenewal} may be read from
 * any thread.
 */
public final class LeaseScheduler {
  private static final Logger log = LoggerFactory.getLogger(LeaseScheduler.class);

  private final PartitionLeases leases;
  private final String relayId;
  private final Duration heartbeat;
  private final Duration pollInterval;
  private final RelayMetrics metrics;
  private final RelayClock clock;
  private long nextCoordinationNanos;
  private volatile long lastRenewalNanos;
  private volatile boolean renewed;
  private OwnedPartitions lapseCounted; // the holding whose lapse was counted

  public LeaseScheduler(
      PartitionLeases leases,
      String relayId,
      Duration heartbeat,
      Duration pollInterval,
      RelayMetrics metrics,
      RelayClock clock) {
    this.leases = leases;
    this.relayId = relayId;
    this.heartbeat = heartbeat;
    this.pollInterval = pollInterval;
    this.metrics = metrics;
    this.clock = clock;
    this.nextCoordinationNanos = clock.nanoTime();
  }

  /** Whether a coordination is due now. */
  public boolean due() {
    return clock.nanoTime() - nextCoordinationNanos >= 0;
  }

  /** When the next coordination falls due ({@link RelayClock#nanoTime()} terms). */
  public long nextCoordinationNanos() {
    return nextCoordinationNanos;
  }

  public OwnedPartitions owned() {
    return leases.owned();
  }

  public int share() {
    return leases.share();
  }

  /** Time since the last successful coordination; null before the first. */
  public Duration sinceLastRenewal() {
    return renewed ? Duration.ofNanos(clock.nanoTime() - lastRenewalNanos) : null;
  }

  /** Coordinates now; a failure is logged and counted, and the holding expires by itself. */
  public void coordinate() {
    long now = clock.nanoTime();
    OwnedPartitions previous = leases.owned();
    try {
      OwnedPartitions owned = leases.coordinate();
      lastRenewalNanos = now;
      renewed = true;
      countLeases(previous, owned, now);
      if (owned.size() != previous.size()) {
        log.info(
            "relay {} holds {} of {} partitions (fair share {})",
            relayId,
            owned.size(),
            Dialect.PARTITIONS,
            leases.share());
      }
      Duration next = owned.size() < leases.share() ? pollInterval : heartbeat;
      nextCoordinationNanos = now + Math.min(next.toNanos(), heartbeat.toNanos());
    } catch (RuntimeException e) {
      metrics.lastError(ErrorSummary.of(e));
      log.error(
          "relay {}: cannot renew partition leases; it stops publishing when they run out and"
              + " other relays take over",
          relayId,
          e);
      nextCoordinationNanos = now + RelaySettings.ERROR_PAUSE.toNanos();
      countLapse(previous, clock.nanoTime());
    }
  }

  /** Gives every partition back; on failure they expire by themselves. */
  public void releaseAll() {
    try {
      leases.releaseAll();
    } catch (RuntimeException e) {
      log.warn(
          "relay {}: could not give its partitions back; they expire by themselves", relayId, e);
    }
  }

  /** Counts the leases a coordination renewed and took, and those that ran out before it. */
  private void countLeases(OwnedPartitions previous, OwnedPartitions owned, long startNanos) {
    countLapse(previous, startNanos);
    boolean lapsed = !previous.isEmpty() && !previous.validAt(startNanos);
    for (Map.Entry<Integer, Long> held : owned.epochs().entrySet()) {
      if (!lapsed && held.getValue().equals(previous.epochs().get(held.getKey()))) {
        metrics.leaseRenewed();
      } else {
        metrics.leaseAcquired();
      }
    }
  }

  /** Counts once the partitions of a holding whose leases ran out before a renewal. */
  private void countLapse(OwnedPartitions holding, long nowNanos) {
    if (!holding.isEmpty() && !holding.validAt(nowNanos) && holding != lapseCounted) {
      lapseCounted = holding;
      metrics.leasesExpired(holding.size());
    }
  }
}
