package io.tandem.nats.internal;

import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Reads a binary-mode CloudEvent from NATS headers that were already percent-decoded: {@code ce-}
 * headers are attributes and extensions, {@code content-type} is {@code datacontenttype}.
 */
public final class NatsMessageReader extends BaseGenericBinaryMessageReaderImpl<String, String> {
  /** The prefix of every CloudEvents attribute header. */
  public static final String PREFIX = "ce-";

  /** The header that carries {@code datacontenttype}. */
  public static final String CONTENT_TYPE = "content-type";

  private final Map<String, String> headers;

  /**
   * @param headers lowercased header names to decoded values
   * @param data the message body, may be empty
   */
  public NatsMessageReader(SpecVersion version, Map<String, String> headers, byte[] data) {
    super(version, data == null || data.length == 0 ? null : BytesCloudEventData.wrap(data));
    this.headers = headers;
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
    headers.forEach(fn);
  }

  @Override
  protected String toCloudEventsValue(String value) {
    return value;
  }
}
