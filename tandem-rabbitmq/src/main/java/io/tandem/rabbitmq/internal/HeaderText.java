package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.LongString;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** AMQP header values and message properties as text, for decoding and for dead letters. */
public final class HeaderText {
  private HeaderText() {}

  /**
   * A header value as text: the client reads AMQP strings as {@link LongString}, byte arrays as
   * UTF-8, timestamps as RFC 3339; nested arrays and tables (such as {@code x-death}) recursively.
   */
  public static String text(Object value) {
    if (value == null) {
      return "";
    }
    if (value instanceof LongString s) {
      return s.toString();
    }
    if (value instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    if (value instanceof Date date) {
      return date.toInstant().toString();
    }
    if (value instanceof List<?> list) {
      return list.stream().map(HeaderText::text).collect(Collectors.joining(", ", "[", "]"));
    }
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream()
          .map(e -> e.getKey() + "=" + text(e.getValue()))
          .collect(Collectors.joining(", ", "{", "}"));
    }
    return value.toString();
  }

  /**
   * Everything a delivery carries besides its body, as text: {@code exchange}, {@code routing_key}
   * and {@code redelivered} from the envelope, each property that is set under its AMQP name
   * ({@code content_type}, {@code message_id}, {@code delivery_mode}, {@code timestamp}, ...), and
   * every header under its own name.
   */
  public static Map<String, String> of(Envelope envelope, AMQP.BasicProperties properties) {
    Map<String, String> raw = new LinkedHashMap<>();
    if (envelope != null) {
      raw.put("exchange", envelope.getExchange());
      raw.put("routing_key", envelope.getRoutingKey());
      raw.put("redelivered", Boolean.toString(envelope.isRedeliver()));
    }
    if (properties != null) {
      put(raw, "content_type", properties.getContentType());
      put(raw, "content_encoding", properties.getContentEncoding());
      put(raw, "delivery_mode", properties.getDeliveryMode());
      put(raw, "priority", properties.getPriority());
      put(raw, "correlation_id", properties.getCorrelationId());
      put(raw, "reply_to", properties.getReplyTo());
      put(raw, "expiration", properties.getExpiration());
      put(raw, "message_id", properties.getMessageId());
      put(raw, "timestamp", properties.getTimestamp());
      put(raw, "type", properties.getType());
      put(raw, "user_id", properties.getUserId());
      put(raw, "app_id", properties.getAppId());
      if (properties.getHeaders() != null) {
        properties.getHeaders().forEach((name, value) -> put(raw, name, value));
      }
    }
    return raw;
  }

  private static void put(Map<String, String> raw, String name, Object value) {
    if (value != null) {
      raw.put(name, text(value));
    }
  }
}
