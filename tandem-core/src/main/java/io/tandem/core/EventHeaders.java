package io.tandem.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The headers an event carries besides its payload: W3C trace context, tenant and correlation id,
 * plus any application keys. Immutable; stored as a JSON object in the outbox's {@code headers}
 * column and mapped to CloudEvents extensions on the wire.
 *
 * <pre>{@code
 * EventHeaders h = EventHeaders.builder()
 *     .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
 *     .tenant("acme")
 *     .correlationId("checkout-42")
 *     .build();
 * }</pre>
 */
public final class EventHeaders {
  /** W3C trace context: {@code version-traceid-parentid-flags}. */
  public static final String TRACEPARENT = "traceparent";

  /** W3C trace context vendor state. */
  public static final String TRACESTATE = "tracestate";

  /** The tenant the event belongs to, for routing and policy. */
  public static final String TENANT = "tenant";

  /** Ties together every event of one business transaction (a saga, a choreography). */
  public static final String CORRELATION_ID = "correlationid";

  /** No headers. */
  public static final EventHeaders EMPTY = new EventHeaders(Map.of());

  private static final Pattern KEY = Pattern.compile("[a-z0-9]{1,20}");

  /**
   * Names a header may not take: the CloudEvents context attributes and the extensions Tandem
   * itself sets from the envelope.
   */
  public static final java.util.Set<String> RESERVED =
      java.util.Set.of(
          "id",
          "source",
          "type",
          "subject",
          "time",
          "data",
          "specversion",
          "datacontenttype",
          "dataschema",
          "partitionkey",
          "sequence",
          "aggregatetype",
          "schemaversion");

  private static final Pattern TRACEPARENT_FORMAT =
      Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

  private final Map<String, String> values;

  private EventHeaders(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Headers from a plain map (as read back from the outbox). Keys must be lowercase letters and
   * digits, at most 20 characters (the CloudEvents extension-name rule), so that they travel
   * unchanged on every transport.
   */
  public static EventHeaders of(Map<String, String> values) {
    Builder b = builder();
    values.forEach(b::put);
    return b.build();
  }

  /**
   * Headers from their JSON form (an object of strings), as stored in the outbox's {@code headers}
   * column; null or blank is empty. Every value must be a JSON string (a number is refused, not
   * converted).
   *
   * @throws InvalidEventException when the text is not such an object or a key or value is not
   *     allowed
   */
  public static EventHeaders fromJson(String json) {
    if (json == null || json.isBlank()) {
      return EMPTY;
    }
    com.fasterxml.jackson.databind.JsonNode tree;
    try {
      tree = io.tandem.core.json.Json.parse(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new InvalidEventException(
          EventRule.HEADERS_OBJECT, "headers", "are not JSON: " + e.getOriginalMessage());
    }
    if (!tree.isObject()) {
      throw new InvalidEventException(
          EventRule.HEADERS_OBJECT, "headers", "must be a JSON object, was " + tree.getNodeType());
    }
    Builder b = builder();
    for (Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> h : tree.properties()) {
      if (!h.getValue().isTextual()) {
        throw new InvalidEventException(
            EventRule.HEADER_VALUE_STRING,
            "headers",
            "value of '" + h.getKey() + "' must be a JSON string, was " + h.getValue());
      }
      b.put(h.getKey(), h.getValue().textValue());
    }
    return b.build();
  }

  /** These headers as a JSON object of strings. */
  public String toJson() {
    return io.tandem.core.json.Json.write(values);
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  public Optional<String> traceparent() {
    return get(TRACEPARENT);
  }

  public Optional<String> tracestate() {
    return get(TRACESTATE);
  }

  public Optional<String> tenant() {
    return get(TENANT);
  }

  public Optional<String> correlationId() {
    return get(CORRELATION_ID);
  }

  /** All headers, in insertion order; unmodifiable. */
  public Map<String, String> asMap() {
    return values;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EventHeaders other && values.equals(other.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return values.toString();
  }

  /** Builds {@link EventHeaders}; validates keys and the traceparent format. */
  public static final class Builder {
    private final Map<String, String> values = new LinkedHashMap<>();

    private Builder() {}

    public Builder traceparent(String traceparent) {
      return put(TRACEPARENT, traceparent);
    }

    public Builder tracestate(String tracestate) {
      return put(TRACESTATE, tracestate);
    }

    public Builder tenant(String tenant) {
      return put(TENANT, tenant);
    }

    public Builder correlationId(String correlationId) {
      return put(CORRELATION_ID, correlationId);
    }

    /** Adds any header; {@code key} must match {@code [a-z0-9]{1,20}}. */
    public Builder put(String key, String value) {
      if (key == null || !KEY.matcher(key).matches()) {
        throw new InvalidEventException(
            EventRule.HEADER_KEY_FORMAT,
            "headers",
            "key '"
                + key
                + "' is not allowed: use 1 to 20 lowercase letters or digits "
                + "(CloudEvents extension names), e.g. 'correlationid'");
      }
      if (RESERVED.contains(key)) {
        throw new InvalidEventException(
            EventRule.HEADER_KEY_RESERVED,
            "headers",
            "key '" + key + "' is reserved: Tandem sets it from the envelope on every transport");
      }
      if (value == null) {
        throw new InvalidEventException(
            EventRule.HEADER_VALUE_STRING, "headers", "value of '" + key + "' must not be null");
      }
      if (EventRule.isBlank(value)) {
        throw new InvalidEventException(
            EventRule.HEADER_VALUE_NOT_BLANK,
            "headers",
            "value of '" + key + "' must not be blank");
      }
      if (key.equals(TRACEPARENT) && !TRACEPARENT_FORMAT.matcher(value).matches()) {
        throw new InvalidEventException(
            EventRule.TRACEPARENT_FORMAT,
            "headers",
            "traceparent '"
                + value
                + "' is not W3C trace context "
                + "(expected 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)");
      }
      values.put(key, value);
      return this;
    }

    public EventHeaders build() {
      return values.isEmpty() ? EMPTY : new EventHeaders(values);
    }
  }
}
