package io.tandem.cdc.internal;

import io.tandem.outbox.OutboxRow;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Reads Debezium's change records: an insert into the outbox becomes the {@link OutboxRow} the
 * polling relay would have read (Debezium renders jsonb as PostgreSQL's text and timestamptz as an
 * ISO instant), so both relays build the same event from it.
 */
public final class ChangeRecords {
  /** What a record of the stream is to the relay. */
  public enum Kind {
    /** An insert into {@code tandem_outbox}. */
    OUTBOX_INSERT,
    /** Debezium's heartbeat, or an insert of its heartbeat query. */
    HEARTBEAT,
    /** Anything else (another operation, a tombstone): nothing to publish. */
    OTHER
  }

  private final String outboxTopic;
  private final String heartbeatTableTopic;
  private final String heartbeatTopic;

  public ChangeRecords(String topicPrefix, String schema) {
    this.outboxTopic = topicPrefix + "." + schema + ".tandem_outbox";
    this.heartbeatTableTopic = topicPrefix + "." + schema + ".tandem_cdc_heartbeat";
    this.heartbeatTopic = "__debezium-heartbeat." + topicPrefix;
  }

  public Kind kind(SourceRecord record) {
    String topic = record.topic();
    if (heartbeatTopic.equals(topic) || heartbeatTableTopic.equals(topic)) {
      return Kind.HEARTBEAT;
    }
    if (outboxTopic.equals(topic)
        && record.value() instanceof Struct value
        && "c".equals(value.getString("op"))) {
      return Kind.OUTBOX_INSERT;
    }
    return Kind.OTHER;
  }

  /** The outbox row an {@link Kind#OUTBOX_INSERT} record carries. */
  public static OutboxRow outboxRow(SourceRecord record) {
    Struct after = ((Struct) record.value()).getStruct("after");
    String occurred = after.getString("occurred_at");
    Integer schemaVersion = after.getInt32("schema_version");
    return new OutboxRow(
        after.getInt64("id"),
        after.getString("event_id"),
        after.getString("aggregate_type"),
        after.getString("aggregate_id"),
        after.getInt64("aggregate_version"),
        after.getString("event_type"),
        schemaVersion == null ? 0 : schemaVersion,
        after.getString("payload"),
        after.getString("headers"),
        occurred == null ? null : instant(occurred));
  }

  /** The commit time the source block carries (ms), or null. */
  public static Instant committedAt(SourceRecord record) {
    if (record.value() instanceof Struct value) {
      Struct source = value.getStruct("source");
      Long ms = source == null ? null : source.getInt64("ts_ms");
      return ms == null ? null : Instant.ofEpochMilli(ms);
    }
    return null;
  }

  private static Instant instant(String text) {
    return OffsetDateTime.parse(text).toInstant();
  }
}
