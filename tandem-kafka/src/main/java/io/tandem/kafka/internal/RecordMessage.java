package io.tandem.kafka.internal;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.kafka.CloudEventsKafkaCodec;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** One Kafka record handed over by a {@code KafkaMessageSource}; settled through its partition. */
public final class RecordMessage implements InboundMessage {
  private static final byte[] EMPTY = new byte[0];

  private final ConsumerRecord<String, byte[]> record;
  private final CloudEventsKafkaCodec codec;
  private final HandOver handOver;
  private final PartitionOffsets offsets;
  private final AtomicBoolean acknowledged = new AtomicBoolean();

  RecordMessage(
      ConsumerRecord<String, byte[]> record,
      CloudEventsKafkaCodec codec,
      HandOver handOver,
      PartitionOffsets offsets) {
    this.record = record;
    this.codec = codec;
    this.handOver = handOver;
    this.offsets = offsets;
  }

  /** The record as received. */
  public ConsumerRecord<String, byte[]> record() {
    return record;
  }

  PartitionOffsets offsets() {
    return offsets;
  }

  @Override
  public String key() {
    return record.key();
  }

  @Override
  public String origin() {
    return "kafka " + record.topic() + "[" + record.partition() + "]@" + record.offset();
  }

  /** Each record header as UTF-8 text; of repeated headers the last wins, as in decoding. */
  @Override
  public Map<String, String> rawHeaders() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      byte[] value = header.value();
      headers.put(header.key(), value == null ? "" : new String(value, StandardCharsets.UTF_8));
    }
    return Collections.unmodifiableMap(headers);
  }

  @Override
  public byte[] rawBody() {
    return record.value() == null ? EMPTY : record.value().clone();
  }

  /**
   * @throws io.tandem.core.InvalidMessageException when the record is not a valid Tandem CloudEvent
   */
  @Override
  public Event decode() {
    return codec.decode(record);
  }

  /**
   * Lets the source commit past this record once every earlier record of its partition is
   * acknowledged too. Ignored after the first call and once the partition left this source.
   */
  @Override
  public void acknowledge() {
    if (acknowledged.compareAndSet(false, true)) {
      handOver.acknowledge(offsets, record.offset());
    }
  }

  @Override
  public String toString() {
    return origin();
  }
}
