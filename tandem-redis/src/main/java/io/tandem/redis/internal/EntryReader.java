package io.tandem.redis.internal;

import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Reads a binary-mode CloudEvent from the fields of a stream entry: {@code ce_} fields are
 * attributes and extensions, {@code datacontenttype} is the content type, {@code data} the body.
 */
public final class EntryReader extends BaseGenericBinaryMessageReaderImpl<String, String> {
  /** The prefix of every CloudEvents attribute field. */
  public static final String PREFIX = "ce_";

  /** The field that carries {@code datacontenttype}. */
  public static final String CONTENT_TYPE = "datacontenttype";

  /** The field that carries the payload. */
  public static final String DATA = "data";

  private final Map<String, String> fields;

  public EntryReader(SpecVersion version, Map<String, String> fields) {
    super(version, body(fields.get(DATA)));
    this.fields = fields;
  }

  private static BytesCloudEventData body(String data) {
    return data == null || data.isEmpty()
        ? null
        : BytesCloudEventData.wrap(data.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  protected boolean isContentTypeHeader(String key) {
    return key.equals(CONTENT_TYPE);
  }

  @Override
  protected boolean isCloudEventsHeader(String key) {
    return key.length() > PREFIX.length() && key.startsWith(PREFIX);
  }

  @Override
  protected String toCloudEventsKey(String key) {
    return key.substring(PREFIX.length());
  }

  @Override
  protected void forEachHeader(BiConsumer<String, String> fn) {
    fields.forEach(fn);
  }

  @Override
  protected String toCloudEventsValue(String value) {
    return value;
  }
}
