package io.tandem.outbox.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.ErrorClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets aside the rows of a read that do not hold valid events: quarantines them, under the epochs
 * of their partitions, with the reason in {@code last_error} and {@code error_class} {@link
 * ErrorClass#INVALID_EVENT}, before the rest of the read is published. The later versions of their
 * aggregates wait behind them, as behind any quarantined event; every other row keeps flowing.
 */
public final class UndecodableRows {
  private static final Logger log = LoggerFactory.getLogger(UndecodableRows.class);

  private final OutboxStore store;
  private final String relayId;
  private final Counter failed;
  private final Counter quarantined;

  public UndecodableRows(OutboxStore store, String relayId, MeterRegistry meters) {
    this.store = store;
    this.relayId = relayId;
    this.failed =
        meters.counter("tandem.relay.failures", "error_class", ErrorClass.INVALID_EVENT.name());
    this.quarantined =
        meters.counter("tandem.relay.quarantined", "error_class", ErrorClass.INVALID_EVENT.name());
  }

  /**
   * Quarantines {@code batch}'s undecodable rows and returns the events that may be published.
   *
   * @throws io.tandem.jdbc.JdbcException when the quarantine cannot be recorded (nothing of the
   *     batch is published then: the rows are read again)
   */
  public List<ClaimedEvent> setAside(ClaimedBatch batch, OwnedPartitions owned) {
    if (batch.undecodable().isEmpty()) {
      return batch.events();
    }
    List<OutboxStore.Failure> failures = new ArrayList<>(batch.undecodable().size());
    for (UndecodableRow row : batch.undecodable()) {
      failures.add(
          new OutboxStore.Failure(
              row.rowId(),
              row.partition(),
              ErrorClass.INVALID_EVENT,
              row.reason(),
              true,
              Duration.ZERO));
    }
    store.record(relayId, owned, List.of(), failures);
    for (UndecodableRow row : batch.undecodable()) {
      failed.increment();
      quarantined.increment();
      log.error(
          "relay {}: outbox row {} (event_id {}, aggregate {}/{} version {}) is not a valid event;"
              + " quarantined without publishing it, later versions of its aggregate wait: {}."
              + " Fix the writer; skip the row (OutboxOperations.skip, tandem outbox skip) to"
              + " release its aggregate",
          relayId,
          row.rowId(),
          row.eventId(),
          row.aggregateType(),
          row.aggregateId(),
          row.aggregateVersion(),
          row.reason());
    }
    return batch.publishable();
  }
}
