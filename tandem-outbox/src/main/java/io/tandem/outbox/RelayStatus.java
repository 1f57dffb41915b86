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
 * @param lastError the last coordination or publishing failure, summarised ({@link
 *     io.tandem.core.ErrorSummary}: class and short message, no URLs or credentials); null when the
 *     last batch was recorded in full
 * @param published events it marked published
 * @param failed publish attempts that failed
 * @param failedCyclesInARow cycles in a row whose read, publish or record failed; 0 once one works
 * @param failing whether its last {@code unhealthyAfterFailedCycles} cycles all failed
 * @param sinceLastGoodCycle time since a cycle last worked (null if none has yet)
 */
public record RelayStatus(
    String relayId,
    String state,
    Set<Integer> ownedPartitions,
    int fairShare,
    Duration sinceLastRenewal,
    String lastError,
    long published,
    long failed,
    int failedCyclesInARow,
    boolean failing,
    Duration sinceLastGoodCycle) {

  /**
   * Healthy: running, its leases were renewed within {@code leaseDuration}, and its cycles are not
   * failing. A relay whose broker is down is healthy (it records retries as it should: alert on the
   * outbox's oldest pending age); one that cannot read the outbox, or whose transport throws, is
   * not.
   */
  public boolean healthy(Duration leaseDuration) {
    return "RUNNING".equals(state)
        && sinceLastRenewal != null
        && sinceLastRenewal.compareTo(leaseDuration) < 0
        && !failing;
  }
}
