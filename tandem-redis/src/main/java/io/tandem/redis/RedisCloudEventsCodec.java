package io.tandem.redis;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.types.Time;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.InvalidEventException;
import io.tandem.redis.internal.EntryReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.resps.StreamEntry;

/**
 * Maps an {@link Event} to the fields of a Redis stream entry holding a CloudEvents 1.0 event in
 * binary content mode, and back. Every attribute is a {@code ce_}-prefixed field, the payload is
 * the {@code data} field (UTF-8 JSON, unchanged):
 *
 * <table>
 *   <caption>Envelope to stream entry fields</caption>
 *   <tr><th>Event</th><th>field</th></tr>
 *   <tr><td>(CloudEvents 1.0)</td><td>{@code ce_specversion}: {@code 1.0}</td></tr>
 *   <tr><td>event_id</td><td>{@code ce_id}</td></tr>
 *   <tr><td>(the producing service)</td><td>{@code ce_source}</td></tr>
 *   <tr><td>event_type</td><td>{@code ce_type}</td></tr>
 *   <tr><td>aggregate_id</td><td>{@code ce_subject} and {@code ce_partitionkey}</td></tr>
 *   <tr><td>occurred_at</td><td>{@code ce_time} (RFC 3339, UTC)</td></tr>
 *   <tr><td>aggregate_version</td><td>{@code ce_sequence} (decimal)</td></tr>
 *   <tr><td>aggregate_type</td><td>{@code ce_aggregatetype}</td></tr>
 *   <tr><td>schema_version</td><td>{@code ce_schemaversion} (decimal)</td></tr>
 *   <tr><td>headers</td><td>{@code ce_<name>} per header ({@code ce_traceparent}, ...)</td></tr>
 *   <tr><td>(content type)</td><td>{@code datacontenttype}: {@code application/json}</td></tr>
 *   <tr><td>payload</td><td>{@code data}</td></tr>
 * </table>
 *
 * <p>Values are stored as they are (Redis strings are binary-safe): no escaping.
 *
 * <p>{@link #decode} requires {@code ce_specversion}, {@code ce_id} (a UUID), {@code ce_type},
 * {@code ce_source}, {@code ce_subject}, {@code ce_time}, {@code ce_sequence}, {@code
 * ce_aggregatetype} and {@code data}; {@code ce_schemaversion} defaults to 1; a {@code
 * datacontenttype}, if present, must be JSON; any other {@code ce_} field becomes an event header;
 * other fields are ignored.
 *
 * <pre>{@code
 * RedisCloudEventsCodec codec = RedisCloudEventsCodec.create("/tandem/orders-service");
 * Map<String, String> fields = codec.encode(event);
 * Event back = codec.decode(streamEntry);   // or codec.decode(fields)
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class RedisCloudEventsCodec {
  /** The {@code source} of {@link #create()}, for codecs that only decode. */
  public static final String DEFAULT_SOURCE = "/tandem";

  /** The content type of every payload. */
  public static final String CONTENT_TYPE = "application/json";

  static final String PARTITION_KEY = "partitionkey";
  static final String SEQUENCE = "sequence";
  static final String AGGREGATE_TYPE = "aggregatetype";
  static final String SCHEMA_VERSION = "schemaversion";

  private static final String PREFIX = EntryReader.PREFIX;
  private static final Set<String> RESERVED =
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
  private static final Set<String> ENVELOPE_EXTENSIONS =
      Set.of(PARTITION_KEY, SEQUENCE, AGGREGATE_TYPE, SCHEMA_VERSION);
  private static final Pattern CANONICAL_UUID =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,18}");
  private static final Pattern FAILED_ATTRIBUTE =
      Pattern.compile("(?:for \"|Attribute ')([A-Za-z0-9]+)");

  private final URI source;

  private RedisCloudEventsCodec(URI source) {
    this.source = source;
  }

  /** A codec whose events carry {@code source} {@value #DEFAULT_SOURCE}; enough for decoding. */
  public static RedisCloudEventsCodec create() {
    return create(DEFAULT_SOURCE);
  }

  /**
   * A codec whose encoded events carry {@code source}, a URI reference naming the producing
   * service, e.g. {@code /tandem/orders-service}.
   *
   * @throws IllegalArgumentException if {@code source} is blank or not a URI reference
   */
  public static RedisCloudEventsCodec create(String source) {
    return new RedisCloudEventsCodec(parseSource(source));
  }

  /** The CloudEvents {@code source} of the events this codec encodes. */
  public String source() {
    return source.toString();
  }

  /**
   * The fields of {@code event}'s stream entry, in a fixed order (attributes, extensions, headers,
   * {@code datacontenttype}, {@code data}).
   *
   * @throws InvalidEventException if an event header collides with a CloudEvents attribute
   */
  public Map<String, String> encode(Event event) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put(PREFIX + "specversion", SpecVersion.V1.toString());
    fields.put(PREFIX + "id", event.eventId().toString());
    fields.put(PREFIX + "source", source.toString());
    fields.put(PREFIX + "type", event.eventType());
    fields.put(PREFIX + "subject", event.aggregateId());
    fields.put(
        PREFIX + "time",
        Time.writeTime(OffsetDateTime.ofInstant(event.occurredAt(), ZoneOffset.UTC)));
    fields.put(PREFIX + PARTITION_KEY, event.aggregateId());
    fields.put(PREFIX + SEQUENCE, Long.toString(event.aggregateVersion()));
    fields.put(PREFIX + AGGREGATE_TYPE, event.aggregateType());
    fields.put(PREFIX + SCHEMA_VERSION, Integer.toString(event.schemaVersion()));
    for (Map.Entry<String, String> header : event.headers().asMap().entrySet()) {
      if (RESERVED.contains(header.getKey())) {
        throw new InvalidEventException(
            "headers",
            "key '"
                + header.getKey()
                + "' collides with the CloudEvents attribute of the same name; rename the header"
                + " (reserved: "
                + RESERVED
                + ")");
      }
      fields.put(PREFIX + header.getKey(), header.getValue());
    }
    fields.put(EntryReader.CONTENT_TYPE, CONTENT_TYPE);
    fields.put(EntryReader.DATA, event.payload());
    return fields;
  }

  /**
   * The event that stream entry {@code entry} carries; errors name the entry id.
   *
   * @throws InvalidStreamEntryException as {@link #decode(Map)}
   */
  public Event decode(StreamEntry entry) {
    return decode(entry.getFields(), String.valueOf(entry.getID()));
  }

  /**
   * The event that a stream entry's {@code fields} carry.
   *
   * @throws InvalidStreamEntryException if the fields are not a binary-mode CloudEvent with
   *     Tandem's envelope; when the envelope fails {@link Event}'s own validation (for example a
   *     payload that is not JSON), the {@link InvalidEventException} is wrapped as the cause
   */
  public Event decode(Map<String, String> fields) {
    return decode(fields, null);
  }

  private Event decode(Map<String, String> fields, String entryId) {
    Decoding d = new Decoding(entryId);
    String specVersion = fields.get(PREFIX + "specversion");
    if (specVersion == null) {
      throw d.invalid(
          "specversion", "is missing (field ce_specversion): not a binary-mode CloudEvent", null);
    }
    for (String attribute : new String[] {"id", "source", "type"}) {
      if (fields.get(PREFIX + attribute) == null) {
        throw d.invalid(attribute, "is missing (field ce_" + attribute + ")", null);
      }
    }
    CloudEvent ce;
    try {
      ce = new EntryReader(SpecVersion.parse(specVersion), fields).toEvent();
    } catch (RuntimeException e) {
      throw d.invalid(failedAttribute(e), "is invalid: " + e.getMessage(), e);
    }
    UUID eventId = d.uuid(ce.getId());
    String subject = d.required("subject", ce.getSubject());
    OffsetDateTime time = d.required("time", ce.getTime());
    long sequence = d.decimal(SEQUENCE, d.required(SEQUENCE, ce.getExtension(SEQUENCE)));
    String aggregateType =
        String.valueOf(d.required(AGGREGATE_TYPE, ce.getExtension(AGGREGATE_TYPE)));
    Object schema = ce.getExtension(SCHEMA_VERSION);
    long schemaVersion = schema == null ? 1 : d.decimal(SCHEMA_VERSION, schema);
    if (schemaVersion > Integer.MAX_VALUE) {
      throw d.invalid(SCHEMA_VERSION, "is " + schemaVersion + ", too large", null);
    }
    String contentType = ce.getDataContentType();
    if (contentType != null && !isJson(contentType)) {
      throw d.invalid(
          "datacontenttype", "is '" + contentType + "', expected " + CONTENT_TYPE, null);
    }
    if (ce.getData() == null) {
      throw d.invalid("data", "is missing (field data)", null);
    }
    Event.Builder event =
        Event.builder()
            .eventId(eventId)
            .aggregate(aggregateType, subject, sequence)
            .eventType(ce.getType())
            .schemaVersion((int) schemaVersion)
            .payload(new String(ce.getData().toBytes(), StandardCharsets.UTF_8))
            .occurredAt(time.toInstant());
    try {
      EventHeaders.Builder headers = EventHeaders.builder();
      for (String name : ce.getExtensionNames()) {
        if (!ENVELOPE_EXTENSIONS.contains(name)) {
          headers.put(name, String.valueOf(ce.getExtension(name)));
        }
      }
      return event.headers(headers.build()).build();
    } catch (InvalidEventException e) {
      throw d.invalid(attributeOf(e.field()), "is rejected: " + e.getMessage(), e);
    }
  }

  /** The attribute the CloudEvents SDK complained about, as far as its message tells. */
  private static String failedAttribute(RuntimeException e) {
    String message = String.valueOf(e.getMessage());
    Matcher m = FAILED_ATTRIBUTE.matcher(message);
    if (m.find()) {
      return m.group(1);
    }
    return message.contains("extension") ? "extensions" : "specversion";
  }

  private static boolean isJson(String contentType) {
    String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return mediaType.equals(CONTENT_TYPE) || mediaType.endsWith("+json");
  }

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

  private static URI parseSource(String source) {
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

  /** The entry being decoded, for errors that say which one it was. */
  private record Decoding(String entryId) {
    InvalidStreamEntryException invalid(String attribute, String reason, Throwable cause) {
      return new InvalidStreamEntryException(attribute, reason, entryId, cause);
    }

    <T> T required(String attribute, T value) {
      if (value == null) {
        throw invalid(attribute, "is missing (field ce_" + attribute + ")", null);
      }
      return value;
    }

    UUID uuid(String id) {
      if (id == null || !CANONICAL_UUID.matcher(id).matches()) {
        throw invalid("id", "'" + id + "' is not a UUID (Tandem's event_id)", null);
      }
      return UUID.fromString(id);
    }

    long decimal(String attribute, Object value) {
      String text = String.valueOf(value);
      if (!DECIMAL.matcher(text).matches()) {
        throw invalid(attribute, "'" + text + "' is not a non-negative decimal number", null);
      }
      return Long.parseLong(text);
    }
  }
}
