package io.tandem.kafka;

import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.InvalidEventException;
import io.tandem.kafka.internal.TopicNames;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Maps an {@link Event} to a Kafka record holding a CloudEvents 1.0 event in binary content mode,
 * and back. The record key is the aggregate id; the value is the payload's UTF-8 bytes; every
 * attribute is a {@code ce_}-prefixed header:
 *
 * <table>
 *   <caption>Envelope to CloudEvents</caption>
 *   <tr><th>Event</th><th>CloudEvents attribute</th></tr>
 *   <tr><td>event_id</td><td>{@code id}</td></tr>
 *   <tr><td>event_type</td><td>{@code type}</td></tr>
 *   <tr><td>(the producing service)</td><td>{@code source}</td></tr>
 *   <tr><td>aggregate_id</td><td>{@code subject} and extension {@code partitionkey}</td></tr>
 *   <tr><td>occurred_at</td><td>{@code time}</td></tr>
 *   <tr><td>aggregate_version</td><td>extension {@code sequence} (decimal string)</td></tr>
 *   <tr><td>aggregate_type</td><td>extension {@code aggregatetype}</td></tr>
 *   <tr><td>schema_version</td><td>extension {@code schemaversion} (decimal string)</td></tr>
 *   <tr><td>headers</td><td>one extension per header, same name ({@code traceparent}, ...)</td></tr>
 *   <tr><td>payload</td><td>data, {@code datacontenttype} {@code application/json}</td></tr>
 * </table>
 *
 * <p>{@link #decode} requires {@code specversion}, {@code id} (a UUID), {@code type}, {@code
 * source}, {@code subject}, {@code time}, {@code sequence}, {@code aggregatetype} and data; {@code
 * schemaversion} defaults to 1 when absent; any other extension becomes an event header. A header
 * key that would collide with one of these attributes (for example {@code id}) cannot be encoded.
 *
 * <pre>{@code
 * CloudEventsKafkaCodec codec = CloudEventsKafkaCodec.create("/tandem/orders-service");
 * ProducerRecord<String, byte[]> record = codec.encode("tandem.order", event);
 * Event back = codec.decode(consumerRecord);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class CloudEventsKafkaCodec {
  /** The {@code source} of {@link #create()}, for codecs that only decode. */
  public static final String DEFAULT_SOURCE = "/tandem";

  /** The content type of every payload. */
  public static final String CONTENT_TYPE = "application/json";

  static final String PARTITION_KEY = "partitionkey";
  static final String SEQUENCE = "sequence";
  static final String AGGREGATE_TYPE = "aggregatetype";
  static final String SCHEMA_VERSION = "schemaversion";

  /** Names an event header may not take: they are attributes or Tandem's own extensions. */
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

  private final URI source;

  private CloudEventsKafkaCodec(URI source) {
    this.source = source;
  }

  /** A codec whose events carry {@code source} {@value #DEFAULT_SOURCE}; enough for decoding. */
  public static CloudEventsKafkaCodec create() {
    return create(DEFAULT_SOURCE);
  }

  /**
   * A codec whose encoded events carry {@code source}, a URI reference naming the producing
   * service, e.g. {@code /tandem/orders-service}.
   *
   * @throws IllegalArgumentException if {@code source} is blank or not a URI reference
   */
  public static CloudEventsKafkaCodec create(String source) {
    return new CloudEventsKafkaCodec(parseSource(source));
  }

  /** The CloudEvents {@code source} of the events this codec encodes. */
  public String source() {
    return source.toString();
  }

  /**
   * The record that carries {@code event} to {@code topic}, keyed by its aggregate id.
   *
   * @throws IllegalArgumentException if {@code topic} is not a legal Kafka topic name
   * @throws InvalidEventException if an event header's name collides with a CloudEvents attribute
   */
  public ProducerRecord<String, byte[]> encode(String topic, Event event) {
    TopicNames.validate("topic", topic);
    CloudEventBuilder builder =
        CloudEventBuilder.v1()
            .withId(event.eventId().toString())
            .withType(event.eventType())
            .withSource(source)
            .withSubject(event.aggregateId())
            .withTime(OffsetDateTime.ofInstant(event.occurredAt(), ZoneOffset.UTC))
            .withData(CONTENT_TYPE, event.payload().getBytes(StandardCharsets.UTF_8))
            .withExtension(PARTITION_KEY, event.aggregateId())
            .withExtension(SEQUENCE, Long.toString(event.aggregateVersion()))
            .withExtension(AGGREGATE_TYPE, event.aggregateType())
            .withExtension(SCHEMA_VERSION, Integer.toString(event.schemaVersion()));
    for (Map.Entry<String, String> header : event.headers().asMap().entrySet()) {
      if (RESERVED.contains(header.getKey())) {
        throw new InvalidEventException(
            "headers",
            "key '"
                + header.getKey()
                + "' collides with the CloudEvents attribute of the same "
                + "name; rename the header (reserved: "
                + RESERVED
                + ")");
      }
      builder.withExtension(header.getKey(), header.getValue());
    }
    return KafkaMessageFactory.<String>createWriter(topic, event.aggregateId())
        .writeBinary(builder.build());
  }

  /**
   * The event that {@code record} carries.
   *
   * @throws InvalidMessageException if the record is not a binary-mode CloudEvent with Tandem's
   *     envelope; when the envelope fails {@link Event}'s own validation (for example a payload
   *     that is not JSON), the {@link InvalidEventException} is wrapped as the cause
   */
  public Event decode(ConsumerRecord<String, byte[]> record) {
    Decoding d = new Decoding(record);
    if (record.headers().lastHeader("ce_specversion") == null) {
      throw d.invalid(
          "specversion",
          "is missing (header ce_specversion): not a binary-mode " + "CloudEvent",
          null);
    }
    if (record.headers().lastHeader("ce_id") == null) {
      throw d.invalid("id", "is missing (header ce_id)", null);
    }
    CloudEvent ce;
    try {
      ce = KafkaMessageFactory.createReader(record).toEvent();
    } catch (RuntimeException e) {
      throw d.invalid("specversion", "does not introduce a valid CloudEvent: " + e.getMessage(), e);
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
      throw d.invalid("data", "is missing (the record has no value)", null);
    }
    String payload = d.utf8(ce.getData());

    EventHeaders.Builder headers = EventHeaders.builder();
    Event.Builder event =
        Event.builder()
            .eventId(eventId)
            .aggregate(aggregateType, subject, sequence)
            .eventType(ce.getType())
            .schemaVersion((int) schemaVersion)
            .payload(payload)
            .occurredAt(time.toInstant());
    try {
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

  private static boolean isJson(String contentType) {
    String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
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

  /** The record being decoded, for messages that say where it came from. */
  private record Decoding(ConsumerRecord<String, byte[]> record) {
    InvalidMessageException invalid(String attribute, String reason, Throwable cause) {
      return new InvalidMessageException(
          attribute, reason, record.topic(), record.partition(), record.offset(), cause);
    }

    <T> T required(String attribute, T value) {
      if (value == null) {
        Header header = record.headers().lastHeader("ce_" + attribute);
        throw invalid(
            attribute,
            header == null ? "is missing (header ce_" + attribute + ")" : "is empty",
            null);
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

    String utf8(CloudEventData data) {
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(data.toBytes()))
            .toString();
      } catch (CharacterCodingException e) {
        throw invalid("data", "is not UTF-8 text: " + e, e);
      }
    }
  }
}
