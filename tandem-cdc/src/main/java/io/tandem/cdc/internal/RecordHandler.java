package io.tandem.cdc.internal;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.tandem.core.ErrorSummary;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.OutboxRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's batch handler: turns a batch of change records into events (heartbeats counted, rows
 * of held aggregates left to the drain), drops those the table lacks ({@link StreamedRows}),
 * publishes the rest until they are settled, and only then lets the batch's position be stored
 * ({@link OffsetCommitPolicy}). A broker that takes none of a batch holds the whole stream and it
 * retries in place. Runs on the engine's thread.
 */
public final class RecordHandler
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
  private static final Logger log = LoggerFactory.getLogger(RecordHandler.class);

  private final String relayId;
  private final CdcDialect dialect;
  private final ChangeRecords changes;
  private final CdcStore store;
  private final HeldAggregates held;
  private final RoundPublisher publisher;
  private final Settlement settlement;
  private final CdcMetrics metrics;
  private final BooleanSupplier closing;
  private volatile boolean streamReached;

  public RecordHandler(
      String relayId,
      CdcDialect dialect,
      ChangeRecords changes,
      CdcStore store,
      HeldAggregates held,
      RoundPublisher publisher,
      Settlement settlement,
      CdcMetrics metrics,
      BooleanSupplier closing) {
    this.relayId = relayId;
    this.dialect = dialect;
    this.changes = changes;
    this.store = store;
    this.held = held;
    this.publisher = publisher;
    this.settlement = settlement;
    this.metrics = metrics;
    this.closing = closing;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    if (!streamReached) {
      // The stream's first batch: the engine's start position is fixed now. A row committed after
      // start() looked for pending rows but before that position is in neither; holding every
      // aggregate with pending rows again hands such rows to the drain.
      store.pendingAggregates().forEach(held::hold);
      streamReached = true;
    }
    List<RoundPublisher.Item> items = new ArrayList<>();
    for (RecordChangeEvent<SourceRecord> change : records) {
      SourceRecord record = change.record();
      switch (changes.kind(record)) {
        case HEARTBEAT -> metrics.heartbeat();
        case OUTBOX_INSERT -> {
          OutboxRow row = ChangeRecords.outboxRow(record);
          Aggregate aggregate = new Aggregate(row.aggregateType(), row.aggregateId());
          if (held.leaveBehind(aggregate)) {
            continue; // an earlier version waits in the database: the drain publishes this one
          }
          try {
            items.add(new RoundPublisher.Item(row.rowId(), aggregate, row.toEvent(), 1));
          } catch (RuntimeException e) {
            settlement.quarantineUndecodable(row, aggregate, e);
          }
        }
        case OTHER -> {
          // nothing to publish
        }
      }
    }
    if (!items.isEmpty()) {
      items = stillToPublish(items);
      if (items == null) {
        return; // closing while the database did not answer: nothing is marked processed
      }
    }
    if (!items.isEmpty() && !publishUntilSettled(items)) {
      return; // closing while the broker was down: nothing is marked processed
    }
    OffsetCommitPolicy.settled(records, committer);
  }

  /**
   * The items to publish ({@link StreamedRows}), or null if the relay closed while the database
   * could not answer. On MariaDB a row the stream carries but the table lacks was never committed:
   * MariaDB writes an XA branch's rows to the binlog at XA PREPARE, and Debezium relays them then,
   * even if XA ROLLBACK follows (the read waits for a prepared branch's outcome); it is not
   * published. On PostgreSQL the stream holds committed transactions only, and such a row is a
   * commit the read's snapshot does not show yet: it is published. A row already marked published
   * (the drain published it, and a restart streams it again) is not published twice.
   */
  private List<RoundPublisher.Item> stillToPublish(List<RoundPublisher.Item> items)
      throws InterruptedException {
    List<Long> ids = items.stream().map(RoundPublisher.Item::rowId).toList();
    Map<Long, Boolean> rows;
    int failures = 0;
    while (true) {
      try {
        rows = store.rowsOfStream(ids);
        break;
      } catch (JdbcException e) {
        failures++;
        if (failures == 1 || failures % 10 == 0) {
          log.warn(
              "CDC relay {}: cannot read which of {} streamed rows the table holds (attempt {}),"
                  + " retrying: {}",
              relayId,
              ids.size(),
              failures,
              ErrorSummary.of(e));
        }
        if (!pause(backoff(failures))) {
          return null;
        }
      }
    }
    return StreamedRows.stillToPublish(
        items,
        rows,
        dialect.streamsOnlyCommitted(),
        item -> {
          metrics.notInTable();
          log.warn(
              "CDC relay {}: outbox row {} ({}) is in the change stream but not in the table: its"
                  + " transaction never committed (an XA branch prepared, then rolled back), or"
                  + " retention deleted it after it was published; not publishing it",
              relayId,
              item.rowId(),
              item.event());
        });
  }

  /**
   * Publishes {@code items}; returns false only if the relay closed while none could be published.
   */
  private boolean publishUntilSettled(List<RoundPublisher.Item> items) throws InterruptedException {
    int outage = 0;
    while (true) {
      RoundPublisher.Result result = publisher.publish(items);
      boolean allRetriable = result.failed().stream().allMatch(f -> f.error().retriable());
      if (!result.everythingFailed() || !allRetriable) {
        settlement.settle(result);
        return true;
      }
      // The broker took none: an outage holds the whole stream, and the position stays.
      outage++;
      if (outage == 1 || outage % 10 == 0) {
        log.warn(
            "CDC relay {}: the broker acknowledged none of {} events (attempt {}), retrying: {}",
            relayId,
            items.size(),
            outage,
            result.failed().get(0).error().getMessage());
      }
      if (!pause(backoff(outage))) {
        return false;
      }
    }
  }

  private static long backoff(int attempt) {
    return Math.min(5000, 100L << Math.min(attempt, 6));
  }

  /** Sleeps; false if the relay began closing meanwhile. */
  private boolean pause(long millis) throws InterruptedException {
    long until = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < until) {
      if (closing.getAsBoolean()) {
        return false;
      }
      Thread.sleep(Math.min(100, millis));
    }
    return !closing.getAsBoolean();
  }
}
