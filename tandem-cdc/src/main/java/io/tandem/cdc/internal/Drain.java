package io.tandem.cdc.internal;

import io.tandem.outbox.OutboxRow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the rows the stream left in the database: the held aggregates' rows (a retry, a start
 * backlog, a row acknowledged but not marked) in version order, up to the first that is quarantined
 * or waiting for its retry; an aggregate with nothing left is released back to the stream, unless
 * it was held again meanwhile. Runs on the relay's drain thread.
 */
public final class Drain implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(Drain.class);
  private static final int ROWS_PER_AGGREGATE = 100;
  private static final int AGGREGATES_PER_CYCLE = 500;

  private final String relayId;
  private final CdcStore store;
  private final HeldAggregates held;
  private final RoundPublisher publisher;
  private final Settlement settlement;

  public Drain(
      String relayId,
      CdcStore store,
      HeldAggregates held,
      RoundPublisher publisher,
      Settlement settlement) {
    this.relayId = relayId;
    this.store = store;
    this.held = held;
    this.publisher = publisher;
    this.settlement = settlement;
  }

  @Override
  public void run() {
    List<Aggregate> aggregates = held.snapshot();
    if (aggregates.isEmpty()) {
      return;
    }
    List<RoundPublisher.Item> items = new ArrayList<>();
    Map<Aggregate, Long> generations = new LinkedHashMap<>();
    for (Aggregate aggregate :
        aggregates.subList(0, Math.min(aggregates.size(), AGGREGATES_PER_CYCLE))) {
      long generation = held.generation(aggregate);
      List<CdcStore.PendingRow> rows = store.pendingRows(aggregate, ROWS_PER_AGGREGATE);
      if (rows.isEmpty()) {
        generations.put(aggregate, generation);
        continue;
      }
      for (CdcStore.PendingRow pending : rows) {
        if (pending.quarantined() || pending.waiting()) {
          break;
        }
        OutboxRow row = pending.row();
        try {
          items.add(
              new RoundPublisher.Item(
                  row.rowId(), aggregate, row.toEvent(), pending.attempts() + 1));
        } catch (RuntimeException e) {
          settlement.quarantineUndecodable(row, aggregate, e);
          break;
        }
      }
    }
    generations.forEach(
        (aggregate, generation) -> {
          if (held.releaseIf(aggregate, generation)) {
            log.debug("CDC relay {}: {} is published up to date again", relayId, aggregate);
          }
        });
    if (!items.isEmpty()) {
      settlement.settle(publisher.publish(items));
    }
  }
}
