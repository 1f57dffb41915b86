package io.tandem.cloudevents;

import static io.tandem.cloudevents.CloudEventMapping.AGGREGATE_TYPE;
import static io.tandem.cloudevents.CloudEventMapping.CONTENT_TYPE;
import static io.tandem.cloudevents.CloudEventMapping.ENVELOPE_EXTENSIONS;
import static io.tandem.cloudevents.CloudEventMapping.RESERVED;
import static io.tandem.cloudevents.CloudEventMapping.SCHEMA_VERSION;
import static io.tandem.cloudevents.CloudEventMapping.SEQUENCE;

import io.cloudevents.CloudEvent;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.InvalidEventException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a CloudEvent with Tandem's envelope (see {@link CloudEventMapping}) back into an {@link
 * Event}. Requires {@code id} (a UUID), {@code subject}, {@code time}, {@code sequence} (a
 * non-negative decimal), {@code aggregatetype} and data (UTF-8); {@code schemaversion} defaults to
 * 1; a {@code datacontenttype}, if present, must be JSON ({@code application/json} or {@code
 * +json}); any other extension becomes an event header. Each failure is an {@link
 * InvalidCloudEventException} naming the attribute; when the values fail {@link Event}'s own
 * validation, the {@link InvalidEventException} is its cause.
 *
 * <p>A decoder only knows how its transport words an absent attribute:
 *
 * <pre>{@code
 * CloudEventDecoder decoder =
 *     CloudEventDecoder.of(a -> "is missing (field ce_" + a + ")", "is missing (field data)");
 * Event event = decoder.decode(cloudEvent);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class CloudEventDecoder {
  private static final Pattern CANONICAL_UUID =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,18}");
  private static final Pattern FAILED_ATTRIBUTE =
      Pattern.compile("(?:for \"|Attribute ')([A-Za-z0-9]+)");

  private final Function<String, String> missing;
  private final Function<String, String> empty;
  private final String missingData;

  private CloudEventDecoder(
      Function<String, String> missing, Function<String, String> empty, String missingData) {
    this.missing = Objects.requireNonNull(missing, "missing");
    this.empty = Objects.requireNonNull(empty, "empty");
    this.missingData = Objects.requireNonNull(missingData, "missingData");
  }

  /**
   * A decoder whose errors say {@code missing.apply(attribute)} for an absent attribute, e.g.
   * {@code "is missing (header ce_time)"}, and {@code missingData} for absent data, e.g. {@code "is
   * missing (the message has no body)"}. An empty text attribute reads {@code "is empty"}.
   */
  public static CloudEventDecoder of(Function<String, String> missing, String missingData) {
    return new CloudEventDecoder(missing, attribute -> "is empty", missingData);
  }

  /** This decoder, with {@code empty.apply(attribute)} for an empty text attribute. */
  public CloudEventDecoder withEmpty(Function<String, String> empty) {
    return new CloudEventDecoder(missing, empty, missingData);
  }

  /**
   * The event that {@code ce} carries.
   *
   * @throws InvalidCloudEventException naming the attribute that is missing or invalid
   */
  public Event decode(CloudEvent ce) {
    UUID eventId = uuid(ce.getId());
    String subject = required("subject", ce.getSubject());
    OffsetDateTime time = required("time", ce.getTime());
    long sequence = decimal(SEQUENCE, required(SEQUENCE, ce.getExtension(SEQUENCE)));
    String aggregateType =
        String.valueOf(required(AGGREGATE_TYPE, ce.getExtension(AGGREGATE_TYPE)));
    int schemaVersion = schemaVersion(ce.getExtension(SCHEMA_VERSION));
    String payload =
        payload(ce.getDataContentType(), ce.getData() == null ? null : ce.getData().toBytes());
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : ce.getExtensionNames()) {
      if (!ENVELOPE_EXTENSIONS.contains(name)) {
        headers.put(name, String.valueOf(ce.getExtension(name)));
      }
    }
    return event(
        eventId,
        ce.getType(),
        aggregateType,
        subject,
        sequence,
        schemaVersion,
        payload,
        time.toInstant(),
        headers);
  }

  /**
   * The event that a transport's CloudEvents {@code attributes} (by name, as text), {@code
   * contentType} (or null) and {@code data} (or null) carry; also requires {@code source} and
   * {@code type}, and refuses empty text. Attributes that are not {@link
   * CloudEventMapping#RESERVED} become event headers.
   *
   * @throws InvalidCloudEventException naming the attribute that is missing or invalid
   */
  public Event decode(Map<String, String> attributes, String contentType, byte[] data) {
    UUID eventId = uuid(requiredText(attributes, "id"));
    requiredText(attributes, "source");
    String type = requiredText(attributes, "type");
    String subject = requiredText(attributes, "subject");
    Instant time = time(requiredText(attributes, "time"));
    long sequence = decimal(SEQUENCE, requiredText(attributes, SEQUENCE));
    String aggregateType = requiredText(attributes, AGGREGATE_TYPE);
    int schemaVersion = schemaVersion(attributes.get(SCHEMA_VERSION));
    String payload = payload(contentType, data);
    Map<String, String> headers = new LinkedHashMap<>();
    attributes.forEach(
        (name, value) -> {
          if (!RESERVED.contains(name)) {
            headers.put(name, value);
          }
        });
    return event(
        eventId, type, aggregateType, subject, sequence, schemaVersion, payload, time, headers);
  }

  /**
   * The attribute the CloudEvents SDK complained about when it could not read a message, as far as
   * its message tells: {@code extensions} or {@code specversion} when it does not name one.
   */
  public static String failedAttribute(RuntimeException e) {
    String message = String.valueOf(e.getMessage());
    Matcher m = FAILED_ATTRIBUTE.matcher(message);
    if (m.find()) {
      return m.group(1);
    }
    return message.contains("extension") ? "extensions" : "specversion";
  }

  private static Event event(
      UUID eventId,
      String type,
      String aggregateType,
      String subject,
      long sequence,
      int schemaVersion,
      String payload,
      Instant time,
      Map<String, String> headers) {
    Event.Builder event =
        Event.builder()
            .eventId(eventId)
            .aggregate(aggregateType, subject, sequence)
            .eventType(type)
            .schemaVersion(schemaVersion)
            .payload(payload)
            .occurredAt(time);
    try {
      EventHeaders.Builder eventHeaders = EventHeaders.builder();
      headers.forEach(eventHeaders::put);
      return event.headers(eventHeaders.build()).build();
    } catch (InvalidEventException e) {
      throw new InvalidCloudEventException(
          attributeOf(e.field()), "is rejected: " + e.getMessage(), e);
    }
  }

  private <T> T required(String attribute, T value) {
    if (value == null) {
      throw invalid(attribute, missing.apply(attribute));
    }
    return value;
  }

  private String requiredText(Map<String, String> attributes, String attribute) {
    String value = required(attribute, attributes.get(attribute));
    if (value.isEmpty()) {
      throw invalid(attribute, empty.apply(attribute));
    }
    return value;
  }

  private static UUID uuid(String id) {
    if (id == null || !CANONICAL_UUID.matcher(id).matches()) {
      throw invalid("id", "'" + id + "' is not a UUID (Tandem's event_id)");
    }
    return UUID.fromString(id);
  }

  private static Instant time(String time) {
    try {
      return OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      throw new InvalidCloudEventException(
          "time", "'" + time + "' is not an RFC 3339 timestamp, e.g. 2025-03-01T10:15:30Z", e);
    }
  }

  private static long decimal(String attribute, Object value) {
    String text = String.valueOf(value);
    if (!DECIMAL.matcher(text).matches()) {
      throw invalid(attribute, "'" + text + "' is not a non-negative decimal number");
    }
    return Long.parseLong(text);
  }

  private static int schemaVersion(Object value) {
    long schemaVersion = value == null ? 1 : decimal(SCHEMA_VERSION, value);
    if (schemaVersion > Integer.MAX_VALUE) {
      throw invalid(SCHEMA_VERSION, "is " + schemaVersion + ", too large");
    }
    return (int) schemaVersion;
  }

  /** The payload: JSON content (if a type is given) and UTF-8 data are required. */
  private String payload(String contentType, byte[] data) {
    if (contentType != null && !isJson(contentType)) {
      throw invalid("datacontenttype", "is '" + contentType + "', expected " + CONTENT_TYPE);
    }
    if (data == null) {
      throw invalid("data", missingData);
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(data))
          .toString();
    } catch (CharacterCodingException e) {
      throw new InvalidCloudEventException("data", "is not UTF-8 text: " + e, e);
    }
  }

  private static boolean isJson(String contentType) {
    String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return mediaType.equals(CONTENT_TYPE) || mediaType.endsWith("+json");
  }

  /** The attribute that carries the envelope field {@link Event} rejected. */
  private static String attributeOf(String field) {
    return switch (field) {
      case "event_id" -> "id";
      case "event_type" -> "type";
      case "aggregate_id" -> "subject";
      case "aggregate_type" -> AGGREGATE_TYPE;
      case "aggregate_version" -> SEQUENCE;
      case "schema_version" -> SCHEMA_VERSION;
      case "payload" -> "data";
      case "occurred_at" -> "time";
      default -> "extensions";
    };
  }

  private static InvalidCloudEventException invalid(String attribute, String reason) {
    return new InvalidCloudEventException(attribute, reason, null);
  }
}
