package io.tandem.cdc.internal;

import io.tandem.outbox.OutboxRow;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Reads Debezium's change records: an insert into the outbox becomes the {@link OutboxRow} the
 * polling relay would have read, so both relays build the same event from it. PostgreSQL's and
 * MariaDB's records differ only in how {@code occurred_at} comes: Debezium renders timestamptz as
 * an ISO instant, and MariaDB's {@code DATETIME(6)} (which holds UTC) as microseconds since the
 * epoch ({@code io.debezium.time.MicroTimestamp}); jsonb comes as PostgreSQL's text, MariaDB's
 * LONGTEXT as written. Topics are {@code prefix.schema.table} on PostgreSQL and {@code
 * prefix.database.table} on MariaDB: {@code schema} is the database there.
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
    Instant occurred = occurredAt(after);
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
        occurred);
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

  private static Instant occurredAt(Struct after) {
    Object value = after.get("occurred_at");
    if (value == null) {
      return null;
    }
    if (value instanceof String text) {
      return OffsetDateTime.parse(text).toInstant();
    }
    if (value instanceof java.util.Date date) {
      return date.toInstant(); // Connect's Timestamp logical type
    }
    long n = ((Number) value).longValue();
    String name = after.schema().field("occurred_at").schema().name();
    if ("io.debezium.time.NanoTimestamp".equals(name)) {
      return Instant.ofEpochSecond(
          Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
    }
    if ("io.debezium.time.Timestamp".equals(name)) {
      return Instant.ofEpochMilli(n);
    }
    // io.debezium.time.MicroTimestamp, Debezium's default for DATETIME(6)
    return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000L), Math.floorMod(n, 1_000_000L) * 1000);
  }
}
