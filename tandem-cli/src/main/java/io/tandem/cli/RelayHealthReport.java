package io.tandem.cli;

import io.tandem.outbox.OutboxStatus;
import io.tandem.outbox.RelayStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The body of the standalone relay's {@code /health}: its own status and the outbox backlog. */
final class RelayHealthReport {
  private RelayHealthReport() {}

  /**
   * Up while the relay runs, renewed its leases within {@code lease} and its cycles are not failing
   * ({@link RelayStatus#healthy}); {@code outbox} is the last backlog read (null before the first).
   */
  static HealthServer.Health of(RelayStatus s, OutboxStatus outbox, Duration lease) {
    boolean up = s.healthy(lease);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", up ? "UP" : "DOWN");
    body.put("relay_id", s.relayId());
    body.put("state", s.state());
    body.put("owned_partitions", s.ownedPartitions().size());
    body.put("fair_share", s.fairShare());
    body.put("since_last_renewal_ms", millis(s.sinceLastRenewal()));
    body.put("failing", s.failing());
    body.put("failed_cycles_in_a_row", s.failedCyclesInARow());
    body.put("since_last_good_cycle_ms", millis(s.sinceLastGoodCycle()));
    body.put("published", s.published());
    body.put("failed", s.failed());
    body.put("pending", outbox == null ? null : outbox.pending());
    body.put("oldest_pending_age_ms", outbox == null ? null : outbox.oldestPendingAge().toMillis());
    body.put("quarantined", outbox == null ? null : outbox.quarantined());
    body.put("stranded_partitions", outbox == null ? null : outbox.stranded().size());
    body.put("last_error", s.lastError()); // an ErrorSummary: class and short message
    return new HealthServer.Health(up, body);
  }

  private static Long millis(Duration d) {
    return d == null ? null : d.toMillis();
  }
}
