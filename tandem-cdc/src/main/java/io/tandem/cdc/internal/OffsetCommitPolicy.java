package io.tandem.cdc.internal;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * When a batch's position may be stored: only after every outbox row in it was acknowledged by the
 * broker and marked published, or left in the database for a retry (its aggregate held for the
 * drain). Then every record of the batch is marked processed, and the engine stores the position at
 * its next offset flush ({@link JdbcOffsetBackingStore}); a batch given up (the relay closing while
 * the broker or the database was down) is not marked at all, so it is streamed again.
 */
public final class OffsetCommitPolicy {
  private OffsetCommitPolicy() {}

  /** Marks the settled batch processed, so its position may be stored. */
  public static void settled(
      List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    for (RecordChangeEvent<SourceRecord> change : records) {
      committer.markProcessed(change);
    }
    committer.markBatchFinished();
  }
}
