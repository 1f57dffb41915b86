package io.tandem.core;

/**
 * The rules of the envelope, one constant each: what {@link Event.Builder#build()} and {@link
 * EventHeaders.Builder} refuse, and what an {@link InvalidEventException} names in {@link
 * InvalidEventException#rule()}.
 *
 * <p>The same rules hold for a row appended to the outbox by plain SQL from any language: the
 * outbox table's constraints refuse it at insert (their names are listed in {@code
 * docs/outbox.md}), and where a database cannot check a rule, the relay quarantines the row with
 * the rule's message instead of publishing it. The sizes ({@link #NAME_LENGTH}, {@link
 * #PAYLOAD_SIZE}, {@link #HEADERS_SIZE}) are {@link EventLimits}; the database checks their
 * defaults.
 *
 * <p><b>White space</b>, wherever a rule says it, is any of U+0009–U+000D, U+001C–U+001F, U+0020,
 * U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 (Unicode's
 * White_Space characters and Java's whitespace), checked by {@link #isWhiteSpace(int)}. A
 * <b>control character</b> is one of U+0000–U+001F and U+007F–U+009F (Unicode category Cc).
 */
public enum EventRule {
  /** A field that must be present is missing (null). */
  REQUIRED,
  /** {@code event_id} is a UUID. */
  EVENT_ID_UUID,
  /** {@code aggregate_type}, {@code aggregate_id}, {@code event_type} are not empty or white. */
  NAME_NOT_BLANK,
  /** Names are at most {@link EventLimits#maxNameLength()} characters (Unicode code points). */
  NAME_LENGTH,
  /** Names hold no control character. */
  NAME_CONTROL_CHARACTERS,
  /** Names neither start nor end with white space. */
  NAME_SURROUNDING_SPACE,
  /** {@code aggregate_version} is at least 1. */
  AGGREGATE_VERSION_POSITIVE,
  /** {@code schema_version} is at least 1. */
  SCHEMA_VERSION_POSITIVE,
  /** {@code payload} is exactly one JSON document, within the JSON reader's limits. */
  PAYLOAD_JSON,
  /** {@code payload} is at most {@link EventLimits#maxPayloadBytes()} UTF-8 bytes. */
  PAYLOAD_SIZE,
  /** {@code headers} is a JSON object. */
  HEADERS_OBJECT,
  /** Header keys are 1 to 20 lowercase ASCII letters or digits (CloudEvents extension names). */
  HEADER_KEY_FORMAT,
  /** Header keys are none of {@link EventHeaders#RESERVED}. */
  HEADER_KEY_RESERVED,
  /** Header values are JSON strings. */
  HEADER_VALUE_STRING,
  /** Header values are not empty or white. */
  HEADER_VALUE_NOT_BLANK,
  /** A {@code traceparent} header is W3C trace context: {@code 00-<32 hex>-<16 hex>-<2 hex>}. */
  TRACEPARENT_FORMAT,
  /** Headers are at most {@link EventLimits#maxHeadersBytes()} bytes as compact JSON. */
  HEADERS_SIZE,
  /**
   * {@code occurred_at} lies between 1000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z: the
   * range of MariaDB's {@code DATETIME} and of RFC 3339's four-digit years (CloudEvents {@code
   * time}).
   */
  OCCURRED_AT_RANGE;

  /** Whether {@code codePoint} is white space in the sense of these rules (see above). */
  public static boolean isWhiteSpace(int codePoint) {
    return switch (codePoint) {
      case 0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 -> true;
      default ->
          (codePoint >= 0x09 && codePoint <= 0x0D)
              || (codePoint >= 0x1C && codePoint <= 0x1F)
              || (codePoint >= 0x2000 && codePoint <= 0x200A);
    };
  }

  /** Whether {@code codePoint} is a control character (Unicode category Cc). */
  public static boolean isControl(int codePoint) {
    return codePoint <= 0x1F || (codePoint >= 0x7F && codePoint <= 0x9F);
  }

  /** Whether {@code value} is empty or only white space. */
  public static boolean isBlank(String value) {
    return value.codePoints().allMatch(EventRule::isWhiteSpace);
  }
}
