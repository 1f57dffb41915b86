package io.tandem.spring;

import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.outbox.OutboxStatus;
import io.tandem.outbox.RelayStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The outbox's health, independent of any Boot version: DOWN when the oldest unpublished event is
 * older than {@code maxOldestPendingAge} (a backlog nobody drains fast enough), or when this
 * application's own relay runs but is not healthy ({@link RelayStatus#healthy(Duration)}). The
 * details are those of the standalone relay's {@code /health}.
 */
public final class BacklogHealth {
  /** Up or down, with the figures that decided it. */
  public record Result(boolean up, Map<String, Object> details) {
    /** Up when both are; the details of both (this one's first). */
    public Result and(Result other) {
      Map<String, Object> all = new LinkedHashMap<>(details);
      all.putAll(other.details);
      return new Result(up && other.up, all);
    }
  }

  private final OutboxOperations operations;
  private final Duration maxOldestPendingAge;
  private final Supplier<OutboxRelay> relay;
  private final Duration leaseDuration;

  /**
   * @param relay the application's running relay, or a supplier of null when it runs none
   * @param leaseDuration the relay's lease: a relay that renewed nothing for this long is DOWN
   */
  public BacklogHealth(
      OutboxOperations operations,
      Duration maxOldestPendingAge,
      Supplier<OutboxRelay> relay,
      Duration leaseDuration) {
    this.operations = Objects.requireNonNull(operations, "operations");
    this.maxOldestPendingAge = Objects.requireNonNull(maxOldestPendingAge, "maxOldestPendingAge");
    this.relay = Objects.requireNonNull(relay, "relay");
    this.leaseDuration = Objects.requireNonNull(leaseDuration, "leaseDuration");
  }

  /** Reads the outbox's status now (one short read) and decides. */
  public Result check() {
    OutboxStatus s = operations.status();
    Map<String, Object> details = new LinkedHashMap<>();
    boolean backlogOk = s.oldestPendingAge().compareTo(maxOldestPendingAge) <= 0;
    details.put("pending", s.pending());
    details.put("oldestPendingAgeMs", s.oldestPendingAge().toMillis());
    details.put("maxOldestPendingAgeMs", maxOldestPendingAge.toMillis());
    details.put("quarantined", s.quarantined());
    details.put("strandedPartitions", s.stranded().size());
    details.put("relays", s.instances().size());
    boolean relayOk = true;
    OutboxRelay r = relay.get();
    if (r != null) {
      RelayStatus rs = r.status();
      relayOk = rs.healthy(leaseDuration);
      details.put("relayId", rs.relayId());
      details.put("relayState", rs.state());
      details.put("relayOwnedPartitions", rs.ownedPartitions().size());
      details.put("relayFailing", rs.failing());
      if (rs.lastError() != null) {
        details.put("relayLastError", rs.lastError());
      }
    }
    if (!backlogOk) {
      details.put(
          "reason",
          "the oldest unpublished event is "
              + s.oldestPendingAge().toMillis()
              + " ms old, over tandem.health.max-oldest-pending-age ("
              + maxOldestPendingAge.toMillis()
              + " ms): is a relay running and can it reach the broker?");
    } else if (!relayOk) {
      details.put("reason", "this application's relay is not healthy (see relayLastError)");
    }
    return new Result(backlogOk && relayOk, details);
  }
}
