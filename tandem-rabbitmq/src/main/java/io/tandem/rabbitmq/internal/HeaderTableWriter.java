package io.tandem.rabbitmq.internal;

import io.cloudevents.CloudEventData;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.message.MessageWriter;
import io.cloudevents.rw.CloudEventRWException;
import io.cloudevents.rw.CloudEventWriter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a CloudEvent in binary content mode as an AMQP 0-9-1 header table: each attribute as a
 * {@code cloudEvents_}-prefixed string header (the AMQP binding's naming), {@code datacontenttype}
 * as the message's content type, data as the body. One instance per message; not thread-safe.
 */
public final class HeaderTableWriter
    implements MessageWriter<HeaderTableWriter, HeaderTableWriter>,
        CloudEventWriter<HeaderTableWriter> {
  /** The prefix of every CloudEvents header, from the CloudEvents AMQP binding. */
  public static final String PREFIX = "cloudEvents_";

  private final Map<String, Object> headers = new LinkedHashMap<>();
  private String contentType;
  private byte[] body = new byte[0];

  @Override
  public HeaderTableWriter create(SpecVersion version) {
    headers.put(PREFIX + "specversion", version.toString());
    return this;
  }

  @Override
  public HeaderTableWriter setEvent(EventFormat format, byte[] value) {
    throw new UnsupportedOperationException("Tandem publishes CloudEvents in binary content mode");
  }

  @Override
  public HeaderTableWriter withContextAttribute(String name, String value)
      throws CloudEventRWException {
    if (name.equals("datacontenttype")) {
      contentType = value;
    } else {
      headers.put(PREFIX + name, value);
    }
    return this;
  }

  @Override
  public HeaderTableWriter end(CloudEventData data) throws CloudEventRWException {
    body = data.toBytes();
    return this;
  }

  @Override
  public HeaderTableWriter end() {
    return this;
  }

  /** The header table, unmodifiable, in the order the attributes were written. */
  public Map<String, Object> headers() {
    return Collections.unmodifiableMap(headers);
  }

  /** The {@code datacontenttype}, or null. */
  public String contentType() {
    return contentType;
  }

  public byte[] body() {
    return body;
  }
}
