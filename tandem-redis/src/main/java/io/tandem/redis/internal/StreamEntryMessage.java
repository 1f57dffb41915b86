package io.tandem.redis.internal;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.redis.RedisCloudEventsCodec;
import io.tandem.redis.internal.EntryAcknowledger.EntryKey;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.resps.StreamEntry;

/** One stream entry read through a consumer group; {@link #acknowledge()} sends {@code XACK}. */
public final class StreamEntryMessage implements InboundMessage {
  private final EntryKey key;
  private final StreamEntry entry;
  private final RedisCloudEventsCodec codec;
  private final EntryAcknowledger acknowledger;
  private final AtomicBoolean acknowledged = new AtomicBoolean();

  public StreamEntryMessage(
      String stream,
      StreamEntry entry,
      RedisCloudEventsCodec codec,
      EntryAcknowledger acknowledger) {
    this.key = new EntryKey(stream, entry.getID());
    this.entry = entry;
    this.codec = codec;
    this.acknowledger = acknowledger;
  }

  /** {@code ce_partitionkey}, else {@code ce_subject} (both the aggregate id), else null. */
  @Override
  public String key() {
    String partitionKey = entry.getFields().get(EntryReader.PREFIX + "partitionkey");
    return partitionKey != null
        ? partitionKey
        : entry.getFields().get(EntryReader.PREFIX + "subject");
  }

  /** {@code redis <stream> <entry id>}. */
  @Override
  public String origin() {
    return "redis " + key.stream() + " " + key.id();
  }

  /** Every field of the entry except {@code data}. */
  @Override
  public Map<String, String> rawHeaders() {
    Map<String, String> headers = new LinkedHashMap<>(entry.getFields());
    headers.remove(EntryReader.DATA);
    return Collections.unmodifiableMap(headers);
  }

  /** The {@code data} field as UTF-8; empty when the entry has none. */
  @Override
  public byte[] rawBody() {
    String data = entry.getFields().get(EntryReader.DATA);
    return data == null ? new byte[0] : data.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws io.tandem.core.InvalidMessageException naming the entry id and the attribute
   */
  @Override
  public Event decode() {
    return codec.decode(entry);
  }

  @Override
  public void acknowledge() {
    if (acknowledged.compareAndSet(false, true)) {
      acknowledger.acknowledge(key);
    }
  }

  @Override
  public String toString() {
    return origin();
  }
}
