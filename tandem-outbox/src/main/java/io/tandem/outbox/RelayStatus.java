package io.tandem.outbox;

import java.time.Duration;
import java.util.Set;

/**
 * One relay instance's own view of itself, for health checks and logs.
 *
 * @param relayId the instance
 * @param state NEW, RUNNING, STOPPING, STOPPED or CRASHED
 * @param ownedPartitions the partitions it holds a valid lease on
 * @param fairShare the number of partitions it aims for (64 / live instances, rounded up)
 * @param sinceLastRenewal time since its leases were last renewed successfully (null if never)
 * @param lastError the last coordination or publishing failure, null when the last cycle worked
 * @param published events it marked published
 * @param failed publish attempts that failed
 */
public record RelayStatus(
    String relayId,
    String state,
    Set<Integer> ownedPartitions,
    int fairShare,
    Duration sinceLastRenewal,
    String lastError,
    long published,
    long failed) {

  /** Healthy: running, and its leases were renewed within {@code leaseDuration}. */
  public boolean healthy(Duration leaseDuration) {
    return "RUNNING".equals(state)
        && sinceLastRenewal != null
        && sinceLastRenewal.compareTo(leaseDuration) < 0;
  }
}
