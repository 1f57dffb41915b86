package io.tandem.redis;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.tandem.cloudevents.CloudEventDecoder;
import io.tandem.cloudevents.CloudEventMapping;
import io.tandem.cloudevents.InvalidCloudEventException;
import io.tandem.core.Event;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import io.tandem.redis.internal.EntryReader;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
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
  public static final String DEFAULT_SOURCE = CloudEventMapping.DEFAULT_SOURCE;

  /** The content type of every payload. */
  public static final String CONTENT_TYPE = CloudEventMapping.CONTENT_TYPE;

  private static final String PREFIX = EntryReader.PREFIX;
  private static final CloudEventDecoder DECODER =
      CloudEventDecoder.of(
          attribute -> "is missing (field ce_" + attribute + ")", "is missing (field data)");

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
    return new RedisCloudEventsCodec(CloudEventMapping.source(source));
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
    CloudEventMapping.attributes(event, source)
        .forEach((name, value) -> fields.put(PREFIX + name, value));
    fields.put(EntryReader.CONTENT_TYPE, CONTENT_TYPE);
    fields.put(EntryReader.DATA, event.payload());
    return fields;
  }

  /**
   * The event that stream entry {@code entry} carries; errors name the entry id.
   *
   * @throws InvalidMessageException as {@link #decode(Map)}
   */
  public Event decode(StreamEntry entry) {
    return decode(entry.getFields(), String.valueOf(entry.getID()));
  }

  /**
   * The event that a stream entry's {@code fields} carry.
   *
   * @throws InvalidMessageException if the fields are not a binary-mode CloudEvent with Tandem's
   *     envelope; when the envelope fails {@link Event}'s own validation (for example a payload
   *     that is not JSON), the {@link InvalidEventException} is wrapped as the cause
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
      throw d.invalid(CloudEventDecoder.failedAttribute(e), "is invalid: " + e.getMessage(), e);
    }
    try {
      return DECODER.decode(ce);
    } catch (InvalidCloudEventException e) {
      throw d.invalid(e.attribute(), e.reason(), e.getCause());
    }
  }

  /** The entry being decoded, for errors that say which one it was. */
  private record Decoding(String entryId) {
    InvalidMessageException invalid(String attribute, String reason, Throwable cause) {
      return new InvalidMessageException(
          "Redis", entryId == null ? null : "at stream entry " + entryId, attribute, reason, cause);
    }
  }
}
