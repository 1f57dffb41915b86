package io.tandem.cloudevents;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.types.Time;
import io.tandem.core.Event;
import io.tandem.core.InvalidEventException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Maps an {@link Event} to a CloudEvents 1.0 event, the same way on every transport:
 *
 * <table>
 *   <caption>Envelope to CloudEvents</caption>
 *   <tr><th>Event</th><th>CloudEvents attribute</th></tr>
 *   <tr><td>event_id</td><td>{@code id}</td></tr>
 *   <tr><td>event_type</td><td>{@code type}</td></tr>
 *   <tr><td>(the producing service)</td><td>{@code source}</td></tr>
 *   <tr><td>aggregate_id</td><td>{@code subject} and extension {@code partitionkey}</td></tr>
 *   <tr><td>occurred_at</td><td>{@code time} (RFC 3339, UTC)</td></tr>
 *   <tr><td>aggregate_version</td><td>extension {@code sequence} (decimal string)</td></tr>
 *   <tr><td>aggregate_type</td><td>extension {@code aggregatetype}</td></tr>
 *   <tr><td>schema_version</td><td>extension {@code schemaversion} (decimal string)</td></tr>
 *   <tr><td>headers</td><td>one extension per header, same name ({@code traceparent}, ...)</td></tr>
 *   <tr><td>payload</td><td>data, {@code datacontenttype} {@code application/json}</td></tr>
 * </table>
 *
 * <pre>{@code
 * URI source = CloudEventMapping.source("/tandem/orders-service");
 * CloudEvent ce = CloudEventMapping.toCloudEvent(event, source);        // for an SDK writer
 * Map<String, String> attributes = CloudEventMapping.attributes(event, source); // as text
 * CloudEventMapping.writeAttributes(event, "/tandem/orders-service",
 *     (name, value) -> headers.put("ce_" + name, value));             // straight into headers
 * }</pre>
 *
 * <p>Tandem's transports write with {@link #writeAttributes} (each publish pays for no map and no
 * CloudEvent); {@link #toCloudEvent} is for code that hands events to an SDK writer. {@link
 * CloudEventDecoder} maps back. Stateless and thread-safe.
 */
public final class CloudEventMapping {
  /** The {@code source} of a codec that only decodes. */
  public static final String DEFAULT_SOURCE = "/tandem";

  /** The content type of every payload. */
  public static final String CONTENT_TYPE = "application/json";

  /** Extension carrying the aggregate id, for brokers that partition by it. */
  public static final String PARTITION_KEY = "partitionkey";

  /** Extension carrying aggregate_version as a decimal string. */
  public static final String SEQUENCE = "sequence";

  /** Extension carrying aggregate_type. */
  public static final String AGGREGATE_TYPE = "aggregatetype";

  /** Extension carrying schema_version as a decimal string; 1 when absent. */
  public static final String SCHEMA_VERSION = "schemaversion";

  /** Names an event header may not take: they are attributes or Tandem's own extensions. */
  public static final Set<String> RESERVED =
      Set.of(
          "id",
          "source",
          "specversion",
          "type",
          "datacontenttype",
          "dataschema",
          "subject",
          "time",
          "data",
          PARTITION_KEY,
          SEQUENCE,
          AGGREGATE_TYPE,
          SCHEMA_VERSION);

  /** The extensions Tandem sets from the envelope (every other extension is an event header). */
  public static final Set<String> ENVELOPE_EXTENSIONS =
      Set.of(PARTITION_KEY, SEQUENCE, AGGREGATE_TYPE, SCHEMA_VERSION);

  private static final String SPEC_VERSION = SpecVersion.V1.toString();

  /** 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the years written with four digits. */
  private static final long MIN_FAST_SECOND = -62_135_596_800L;

  private static final long MAX_FAST_SECOND = 253_402_300_800L;

  private CloudEventMapping() {}

  /**
   * {@code source} as a CloudEvents {@code source}: a URI reference naming the producing service,
   * e.g. {@code /tandem/orders-service}.
   *
   * @throws IllegalArgumentException if {@code source} is blank or not a URI reference
   */
  public static URI source(String source) {
    if (source == null || source.isBlank()) {
      throw new IllegalArgumentException(
          "source must not be blank: give a URI reference naming the producing service, e.g. "
              + "/tandem/orders-service");
    }
    try {
      return new URI(source);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "source '" + source + "' is not a URI reference: " + e.getMessage(), e);
    }
  }

  /**
   * The CloudEvent that carries {@code event}, with data the payload's UTF-8 bytes.
   *
   * @throws InvalidEventException if an event header's name collides with a CloudEvents attribute
   */
  public static CloudEvent toCloudEvent(Event event, URI source) {
    CloudEventBuilder builder =
        CloudEventBuilder.v1()
            .withSource(source)
            .withTime(time(event))
            .withData(CONTENT_TYPE, event.payload().getBytes(StandardCharsets.UTF_8));
    // The same attributes as every transport writes, typed where the SDK types them.
    writeAttributes(
        event,
        source.toString(),
        (name, value) -> {
          switch (name) {
            case "specversion", "source", "time" -> {} // set above, typed
            case "id" -> builder.withId(value);
            case "type" -> builder.withType(value);
            case "subject" -> builder.withSubject(value);
            default -> builder.withExtension(name, value);
          }
        });
    return builder.build();
  }

  /** Receives a CloudEvent's attributes as text, one call per attribute. */
  @FunctionalInterface
  public interface AttributeSink {
    /** One attribute: its CloudEvents name (without any transport prefix) and its text. */
    void attribute(String name, String value);
  }

  /**
   * Every attribute of {@code event}'s CloudEvent but data and {@code datacontenttype}, as text, in
   * a fixed order: {@code specversion}, {@code id}, {@code source}, {@code type}, {@code subject},
   * {@code time}, {@code partitionkey}, {@code sequence}, {@code aggregatetype}, {@code
   * schemaversion}, then the event headers in their order. For transports that write attributes as
   * text without an SDK writer.
   *
   * @throws InvalidEventException if an event header's name collides with a CloudEvents attribute
   */
  public static Map<String, String> attributes(Event event, URI source) {
    Map<String, String> attributes = new LinkedHashMap<>();
    writeAttributes(event, source.toString(), attributes::put);
    return attributes;
  }

  /**
   * Hands the attributes of {@link #attributes} to {@code sink} one by one, in the same order,
   * without building a map or a CloudEvent: the path of a transport that writes one header per
   * attribute for every published event. The event headers are checked against {@link #RESERVED}
   * before the first call, so a refused event reaches {@code sink} not at all.
   *
   * @param source the CloudEvents {@code source}, as {@link #source(String)} accepted it
   * @throws InvalidEventException if an event header's name collides with a CloudEvents attribute
   */
  public static void writeAttributes(Event event, String source, AttributeSink sink) {
    Map<String, String> headers = event.headers().asMap();
    for (String name : headers.keySet()) {
      if (RESERVED.contains(name)) {
        throw collision(name);
      }
    }
    sink.attribute("specversion", SPEC_VERSION);
    sink.attribute("id", event.eventId().toString());
    sink.attribute("source", source);
    sink.attribute("type", event.eventType());
    sink.attribute("subject", event.aggregateId());
    sink.attribute("time", writeTime(event.occurredAt()));
    sink.attribute(PARTITION_KEY, event.aggregateId());
    sink.attribute(SEQUENCE, Long.toString(event.aggregateVersion()));
    sink.attribute(AGGREGATE_TYPE, event.aggregateType());
    sink.attribute(SCHEMA_VERSION, Integer.toString(event.schemaVersion()));
    headers.forEach(sink::attribute);
  }

  /**
   * {@code instant} as RFC 3339 text in UTC, exactly as the CloudEvents SDK writes it ({@link
   * Time#writeTime}: seconds always, the fraction without trailing zeros, {@code Z}), without its
   * formatter, which cost about half of encoding an event. Years outside 1 to 9999 take the SDK's
   * path.
   */
  static String writeTime(Instant instant) {
    long epochSecond = instant.getEpochSecond();
    if (epochSecond < MIN_FAST_SECOND || epochSecond >= MAX_FAST_SECOND) {
      return Time.writeTime(OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
    }
    long day = Math.floorDiv(epochSecond, 86_400);
    int secondOfDay = Math.floorMod(epochSecond, 86_400);
    LocalDate date = LocalDate.ofEpochDay(day);
    StringBuilder text = new StringBuilder(30);
    pad(text, date.getYear(), 4).append('-');
    pad(text, date.getMonthValue(), 2).append('-');
    pad(text, date.getDayOfMonth(), 2).append('T');
    pad(text, secondOfDay / 3_600, 2).append(':');
    pad(text, secondOfDay / 60 % 60, 2).append(':');
    pad(text, secondOfDay % 60, 2);
    int nanos = instant.getNano();
    if (nanos != 0) {
      int digits = 9;
      while (nanos % 10 == 0) {
        nanos /= 10;
        digits--;
      }
      pad(text.append('.'), nanos, digits);
    }
    return text.append('Z').toString();
  }

  private static StringBuilder pad(StringBuilder text, int value, int width) {
    String digits = Integer.toString(value);
    for (int i = digits.length(); i < width; i++) {
      text.append('0');
    }
    return text.append(digits);
  }

  private static OffsetDateTime time(Event event) {
    return OffsetDateTime.ofInstant(event.occurredAt(), ZoneOffset.UTC);
  }

  private static InvalidEventException collision(String header) {
    return new InvalidEventException(
        "headers",
        "key '"
            + header
            + "' collides with the CloudEvents attribute of the same name; rename the header"
            + " (reserved: "
            + RESERVED
            + ")");
  }
}
