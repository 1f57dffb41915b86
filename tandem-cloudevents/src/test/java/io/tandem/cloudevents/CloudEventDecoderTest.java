package io.tandem.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.tandem.core.Event;
import io.tandem.core.InvalidEventException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CloudEventDecoderTest {
  private final CloudEventDecoder decoder =
      CloudEventDecoder.of(a -> "is missing (field ce_" + a + ")", "is missing (no body)")
          .withEmpty(a -> "is empty (field ce_" + a + ")");
  private final Event event = CloudEventMappingTest.event();

  private CloudEvent altered(UnaryOperator<CloudEventBuilder> change) {
    return change
        .apply(
            CloudEventBuilder.v1(
                CloudEventMapping.toCloudEvent(event, CloudEventMappingTest.SOURCE)))
        .build();
  }

  private Map<String, String> attributes(Consumer<Map<String, String>> change) {
    Map<String, String> attributes =
        new LinkedHashMap<>(CloudEventMapping.attributes(event, CloudEventMappingTest.SOURCE));
    change.accept(attributes);
    return attributes;
  }

  private static AbstractThrowableAssert<?, ?> assertInvalid(
      Runnable decode, String attribute, String reason) {
    return assertThatThrownBy(decode::run)
        .isInstanceOfSatisfying(
            InvalidCloudEventException.class,
            e -> {
              assertThat(e.attribute()).isEqualTo(attribute);
              assertThat(e.reason()).isEqualTo(reason);
            })
        .hasMessage("CloudEvents attribute '" + attribute + "' " + reason);
  }

  private byte[] payload() {
    return event.payload().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void missingAttributesOfACloudEventAreNamed() {
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withSubject(null))),
        "subject",
        "is missing (field ce_subject)");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withTime(null))), "time", "is missing (field ce_time)");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withoutExtension("sequence"))),
        "sequence",
        "is missing (field ce_sequence)");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withoutExtension("aggregatetype"))),
        "aggregatetype",
        "is missing (field ce_aggregatetype)");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withoutData())), "data", "is missing (no body)");
  }

  @Test
  void invalidAttributesOfACloudEventAreNamed() {
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withId("42"))),
        "id",
        "'42' is not a UUID (Tandem's event_id)");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withExtension("sequence", "-1"))),
        "sequence",
        "'-1' is not a non-negative decimal number");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withExtension("schemaversion", "x"))),
        "schemaversion",
        "'x' is not a non-negative decimal number");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withExtension("schemaversion", "3000000000"))),
        "schemaversion",
        "is 3000000000, too large");
    assertInvalid(
        () -> decoder.decode(altered(b -> b.withDataContentType("text/plain"))),
        "datacontenttype",
        "is 'text/plain', expected application/json");
    assertInvalid(
            () -> decoder.decode(altered(b -> b.withData(new byte[] {(byte) 0xC3}))),
            "data",
            "is not UTF-8 text: java.nio.charset.MalformedInputException: Input length = 1")
        .hasCauseInstanceOf(CharacterCodingException.class);
  }

  @Test
  void envelopeRejectedByEventNamesTheAttributeAndKeepsTheCause() {
    assertInvalid(
            () ->
                decoder.decode(altered(b -> b.withData("application/json", "not json".getBytes()))),
            "data",
            "is rejected: " + rejection(() -> event.toBuilder().payload("not json").build()))
        .hasCauseInstanceOf(InvalidEventException.class);
    assertInvalid(
            () -> decoder.decode(altered(b -> b.withExtension("note", " "))),
            "extensions",
            "is rejected: invalid event: headers value of 'note' must not be blank")
        .hasCauseInstanceOf(InvalidEventException.class);
  }

  private static String rejection(Runnable build) {
    try {
      build.run();
    } catch (InvalidEventException e) {
      return e.getMessage();
    }
    throw new AssertionError("not rejected");
  }

  @Test
  void schemaVersionDefaultsToOneAndJsonSuffixesAreAccepted() {
    Event decoded =
        decoder.decode(
            altered(
                b ->
                    b.withoutExtension("schemaversion")
                        .withDataContentType("application/cloudevents+json; charset=utf-8")));

    assertThat(decoded.schemaVersion()).isEqualTo(1);
    assertThat(decoded.headers().asMap()).containsOnlyKeys("tenant", "origin");
  }

  @ParameterizedTest
  @ValueSource(strings = {"id", "source", "type", "subject", "time", "sequence", "aggregatetype"})
  void missingOrEmptyTextAttributesAreNamed(String attribute) {
    assertInvalid(
        () -> decoder.decode(attributes(a -> a.remove(attribute)), null, payload()),
        attribute,
        "is missing (field ce_" + attribute + ")");
    assertInvalid(
        () -> decoder.decode(attributes(a -> a.put(attribute, "")), null, payload()),
        attribute,
        "is empty (field ce_" + attribute + ")");
  }

  @Test
  void invalidTextAttributesAreNamed() {
    assertInvalid(
            () -> decoder.decode(attributes(a -> a.put("time", "yesterday")), null, payload()),
            "time",
            "'yesterday' is not an RFC 3339 timestamp, e.g. 2025-03-01T10:15:30Z")
        .hasCauseInstanceOf(DateTimeParseException.class);
    assertInvalid(
        () -> decoder.decode(attributes(a -> {}), null, null), "data", "is missing (no body)");
    assertInvalid(
        () -> decoder.decode(attributes(a -> {}), "application/xml", payload()),
        "datacontenttype",
        "is 'application/xml', expected application/json");
  }

  @Test
  void textAttributesThatAreNotReservedBecomeHeaders() {
    Event decoded =
        decoder.decode(
            attributes(a -> a.put("dataschema", "urn:x")), "application/json", payload());

    assertThat(decoded).isEqualTo(event);
  }

  @Test
  void failedAttributeReadsTheSdksMessage() {
    assertThat(CloudEventDecoder.failedAttribute(new IllegalStateException("for \"time\" bad")))
        .isEqualTo("time");
    assertThat(CloudEventDecoder.failedAttribute(new IllegalStateException("Attribute 'id' x")))
        .isEqualTo("id");
    assertThat(CloudEventDecoder.failedAttribute(new IllegalStateException("bad extension")))
        .isEqualTo("extensions");
    assertThat(CloudEventDecoder.failedAttribute(new IllegalStateException((String) null)))
        .isEqualTo("specversion");
  }
}
