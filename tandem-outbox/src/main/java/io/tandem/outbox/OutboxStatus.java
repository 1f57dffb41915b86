package io.tandem.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The outbox as the database sees it: backlog, quarantine, partition ownership and relay instances.
 * Built by {@link OutboxOperations#status()}.
 *
 * @param pending events waiting to be published (not quarantined, not skipped)
 * @param oldestPendingAge age of the oldest pending event (zero when none)
 * @param quarantined events waiting for an operator
 * @param skipped events an operator skipped
 * @param published events published and not yet removed by retention
 * @param partitions every partition with its owner and lease
 * @param instances relay instances that heartbeat recently
 */
public record OutboxStatus(
    long pending,
    Duration oldestPendingAge,
    long quarantined,
    long skipped,
    long published,
    List<Partition> partitions,
    List<Instance> instances) {

  /** Partitions that nobody holds a live lease on. */
  public List<Partition> unowned() {
    return partitions.stream().filter(p -> !p.owned()).toList();
  }

  /** Partitions nobody holds that have events waiting: a backlog nobody drains. */
  public List<Partition> stranded() {
    return partitions.stream().filter(p -> !p.owned() && p.pending() > 0).toList();
  }

  /**
   * One relay partition.
   *
   * @param leaseRemaining time left on the lease; negative when expired, null when free
   */
  public record Partition(
      int partition, String owner, long epoch, Duration leaseRemaining, long pending) {
    public boolean owned() {
      return owner != null
          && leaseRemaining != null
          && !leaseRemaining.isNegative()
          && !leaseRemaining.isZero();
    }
  }

  /** One relay instance and how long ago it last heartbeat. */
  public record Instance(String relayId, String host, Instant startedAt, Duration heartbeatAge) {}
}
