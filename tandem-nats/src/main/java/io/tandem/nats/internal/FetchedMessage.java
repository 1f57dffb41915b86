package io.tandem.nats.internal;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.nats.NatsCloudEventsCodec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One JetStream message handed over by a {@code JetStreamMessageSource}; acknowledged alone. */
final class FetchedMessage implements InboundMessage {
  private static final Logger LOG = LoggerFactory.getLogger(FetchedMessage.class);
  private static final byte[] EMPTY = new byte[0];
  private static final String PARTITION_KEY = NatsMessageReader.PREFIX + "partitionkey";
  private static final String SUBJECT = NatsMessageReader.PREFIX + "subject";

  private final Message message;
  private final NatsCloudEventsCodec codec;
  private final HeldMessages held;
  private final String origin;
  private final AtomicBoolean acknowledged = new AtomicBoolean();
  private volatile long lastSignalNanos;

  FetchedMessage(
      Message message, NatsCloudEventsCodec codec, HeldMessages held, String streamAndDurable) {
    this.message = message;
    this.codec = codec;
    this.held = held;
    this.origin = "nats " + streamAndDurable + " seq " + streamSequence(message);
    this.lastSignalNanos = System.nanoTime();
  }

  /** The {@code ce-partitionkey} header, else {@code ce-subject}: both are the aggregate id. */
  @Override
  public String key() {
    String key = header(PARTITION_KEY);
    if (key == null) {
      key = header(SUBJECT);
    }
    if (key == null) {
      return null;
    }
    try {
      return HeaderValues.decode(key);
    } catch (IllegalArgumentException e) {
      return key; // only keeps an undecodable message on a stable worker
    }
  }

  /** {@code nats <stream>/<durable> seq <stream sequence>}. */
  @Override
  public String origin() {
    return origin;
  }

  /**
   * {@code subject}, {@code stream}, {@code stream_sequence} and {@code delivered} (how often the
   * server delivered it), then every header as received; of a repeated header the last value.
   */
  @Override
  public Map<String, String> rawHeaders() {
    Map<String, String> raw = new LinkedHashMap<>();
    raw.put("subject", message.getSubject());
    NatsJetStreamMetaData meta = metaData(message);
    if (meta != null) {
      raw.put("stream", meta.getStream());
      raw.put("stream_sequence", Long.toString(meta.streamSequence()));
      raw.put("delivered", Long.toString(meta.deliveredCount()));
    }
    Headers headers = message.getHeaders();
    if (headers != null) {
      for (Map.Entry<String, List<String>> header : headers.entrySet()) {
        List<String> values = header.getValue();
        raw.put(header.getKey(), values.isEmpty() ? "" : values.get(values.size() - 1));
      }
    }
    return Collections.unmodifiableMap(raw);
  }

  @Override
  public byte[] rawBody() {
    byte[] data = message.getData();
    return data == null ? EMPTY : data.clone();
  }

  /**
   * @throws io.tandem.core.InvalidMessageException when the message is not a valid Tandem
   *     CloudEvent
   */
  @Override
  public Event decode() {
    return codec.decode(message);
  }

  /**
   * Acks the message ({@code +ACK}), once; from any thread. When the connection is gone nothing is
   * thrown: JetStream redelivers after the ack wait and the inbox ignores the repeat.
   */
  @Override
  public void acknowledge() {
    if (!acknowledged.compareAndSet(false, true)) {
      return;
    }
    held.release(this);
    try {
      message.ack();
    } catch (RuntimeException e) {
      LOG.debug("cannot acknowledge {}: {}", origin, e.toString());
    }
  }

  long lastSignalNanos() {
    return lastSignalNanos;
  }

  /** Restarts the message's ack wait at the server ({@code +WPI}). */
  void signalInProgress(long nowNanos) {
    if (!acknowledged.get()) {
      lastSignalNanos = nowNanos;
      message.inProgress();
    }
  }

  private String header(String name) {
    Headers headers = message.getHeaders();
    if (headers == null) {
      return null;
    }
    String value = null;
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      List<String> values = header.getValue();
      if (!values.isEmpty() && header.getKey().toLowerCase(Locale.ROOT).equals(name)) {
        value = values.get(values.size() - 1);
      }
    }
    return value;
  }

  private static NatsJetStreamMetaData metaData(Message message) {
    try {
      return message.isJetStream() ? message.metaData() : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String streamSequence(Message message) {
    NatsJetStreamMetaData meta = metaData(message);
    return meta == null ? "?" : Long.toString(meta.streamSequence());
  }

  @Override
  public String toString() {
    return origin;
  }
}
