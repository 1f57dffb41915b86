package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Every rule of the envelope is refused by Java with that rule named. */
class EventRuleTest {
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private static Event.Builder valid() {
    return Event.builder().aggregate("Order", "o-1", 1).eventType("OrderChanged").payload("{}");
  }

  @Test
  void eachRuleHasAViolationThatJavaRefusesNamingIt() {
    Map<EventRule, Supplier<?>> violations = new EnumMap<>(EventRule.class);
    violations.put(EventRule.REQUIRED, () -> valid().aggregate("Order", null, 1).build());
    violations.put(EventRule.NAME_NOT_BLANK, () -> valid().eventType(" \u3000 ").build());
    violations.put(EventRule.NAME_LENGTH, () -> valid().aggregate("x".repeat(256), "o", 1).build());
    violations.put(EventRule.NAME_CONTROL_CHARACTERS, () -> valid().eventType("a\u0085b").build());
    violations.put(
        EventRule.NAME_SURROUNDING_SPACE, () -> valid().aggregate("Order", "o-1\u00a0", 1).build());
    violations.put(
        EventRule.AGGREGATE_VERSION_POSITIVE, () -> valid().aggregate("Order", "o", 0).build());
    violations.put(EventRule.SCHEMA_VERSION_POSITIVE, () -> valid().schemaVersion(0).build());
    violations.put(EventRule.PAYLOAD_JSON, () -> valid().payload("{").build());
    violations.put(
        EventRule.PAYLOAD_SIZE,
        () ->
            valid()
                .payload("\"" + "x".repeat(EventLimits.DEFAULT_MAX_PAYLOAD_BYTES) + "\"")
                .build());
    violations.put(EventRule.HEADERS_OBJECT, () -> EventHeaders.fromJson("[]"));
    violations.put(EventRule.HEADER_KEY_FORMAT, () -> EventHeaders.fromJson("{\"Tenant\":\"a\"}"));
    violations.put(EventRule.HEADER_KEY_RESERVED, () -> EventHeaders.fromJson("{\"time\":\"a\"}"));
    violations.put(EventRule.HEADER_VALUE_STRING, () -> EventHeaders.fromJson("{\"tenant\":1}"));
    violations.put(
        EventRule.HEADER_VALUE_NOT_BLANK, () -> EventHeaders.fromJson("{\"tenant\":\"\\u00a0\"}"));
    violations.put(
        EventRule.TRACEPARENT_FORMAT,
        () -> EventHeaders.builder().traceparent(TRACEPARENT.toUpperCase(java.util.Locale.ROOT)));
    violations.put(
        EventRule.HEADERS_SIZE,
        () ->
            valid()
                .headers(EventHeaders.builder().tracestate("x".repeat(16 * 1024)).build())
                .build());
    violations.put(
        EventRule.OCCURRED_AT_RANGE,
        () -> valid().occurredAt(Instant.parse("0999-12-31T23:59:59Z")).build());

    for (EventRule rule : EventRule.values()) {
      if (rule == EventRule.EVENT_ID_UUID) {
        continue; // Java's event id is a UUID by type; the relay checks the column's text
      }
      assertThat(violations).as("a violation of %s", rule).containsKey(rule);
      InvalidEventException refused =
          catchThrowableOfType(InvalidEventException.class, () -> violations.get(rule).get());
      assertThat(refused).as("%s refused", rule).isNotNull();
      assertThat(refused.rule()).as(refused.getMessage()).contains(rule);
    }
  }

  @Test
  void whiteSpaceIsJavasWhiteSpaceAndUnicodesSpaceSeparatorsAndNothingElse() {
    for (int c = 0; c <= 0x10FFFF; c++) {
      boolean expected =
          Character.isWhitespace(c)
              || Character.isSpaceChar(c)
              || c == 0x85; // NEXT LINE: Unicode White_Space, a control character to Java
      assertThat(EventRule.isWhiteSpace(c)).as("U+%04X", c).isEqualTo(expected);
      assertThat(EventRule.isControl(c))
          .as("U+%04X", c)
          .isEqualTo(Character.getType(c) == Character.CONTROL);
    }
  }

  @Test
  void theEdgesOfTheRulesAreAccepted() {
    assertThat(valid().aggregate("Order", "😀".repeat(255), 1).build().aggregateId())
        .as("255 characters, 510 UTF-16 units")
        .hasSize(510);
    assertThat(valid().occurredAt(Instant.parse("1000-01-01T00:00:00Z")).build()).isNotNull();
    assertThat(valid().occurredAt(Instant.parse("9999-12-31T23:59:59.999999Z")).build())
        .isNotNull();
    assertThat(valid().aggregate("Order", "o\u200b", 1).build().aggregateId())
        .as("a zero-width space is not white space")
        .isEqualTo("o\u200b");
  }
}
