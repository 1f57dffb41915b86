package io.tandem.kafka;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.tandem.cloudevents.CloudEventDecoder;
import io.tandem.cloudevents.CloudEventMapping;
import io.tandem.cloudevents.InvalidCloudEventException;
import io.tandem.core.Event;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import io.tandem.kafka.internal.TopicNames;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

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
  public static final String DEFAULT_SOURCE = CloudEventMapping.DEFAULT_SOURCE;

  /** The content type of every payload. */
  public static final String CONTENT_TYPE = CloudEventMapping.CONTENT_TYPE;

  /** The prefix of every attribute's header but the content type's. */
  static final String PREFIX = "ce_";

  /** The header that carries {@code datacontenttype} in binary mode. */
  static final String CONTENT_TYPE_HEADER = "content-type";

  private final URI source;
  private final String sourceText;

  private CloudEventsKafkaCodec(URI source) {
    this.source = source;
    this.sourceText = source.toString();
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
    return new CloudEventsKafkaCodec(CloudEventMapping.source(source));
  }

  /** The CloudEvents {@code source} of the events this codec encodes. */
  public String source() {
    return sourceText;
  }

  /**
   * The record that carries {@code event} to {@code topic}, keyed by its aggregate id.
   *
   * @throws IllegalArgumentException if {@code topic} is not a legal Kafka topic name
   * @throws InvalidEventException if an event header's name collides with a CloudEvents attribute
   */
  public ProducerRecord<String, byte[]> encode(String topic, Event event) {
    TopicNames.validate("topic", topic);
    // The headers the SDK's binary writer would write, without building a CloudEvent first: this
    // runs for every published event.
    RecordHeaders headers = new RecordHeaders();
    CloudEventMapping.writeAttributes(
        event,
        sourceText,
        (name, value) -> headers.add(PREFIX + name, value.getBytes(StandardCharsets.UTF_8)));
    headers.add(CONTENT_TYPE_HEADER, CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>(
        topic,
        null,
        null,
        event.aggregateId(),
        event.payload().getBytes(StandardCharsets.UTF_8),
        headers);
  }

  /**
   * The event that {@code record} carries.
   *
   * @throws InvalidMessageException if the record is not a binary-mode CloudEvent with Tandem's
   *     envelope; when the envelope fails {@link Event}'s own validation (for example a payload
   *     that is not JSON), the {@link InvalidEventException} is wrapped as the cause
   */
  public Event decode(ConsumerRecord<String, byte[]> record) {
    if (record.headers().lastHeader(PREFIX + "specversion") == null) {
      throw invalid(
          record,
          "specversion",
          "is missing (header ce_specversion): not a binary-mode CloudEvent",
          null);
    }
    if (record.headers().lastHeader(PREFIX + "id") == null) {
      throw invalid(record, "id", "is missing (header ce_id)", null);
    }
    CloudEvent ce;
    try {
      ce = KafkaMessageFactory.createReader(record).toEvent();
    } catch (RuntimeException e) {
      throw invalid(
          record, "specversion", "does not introduce a valid CloudEvent: " + e.getMessage(), e);
    }
    // A header that is present but read as no value is empty rather than missing.
    CloudEventDecoder decoder =
        CloudEventDecoder.of(
            attribute ->
                record.headers().lastHeader(PREFIX + attribute) == null
                    ? "is missing (header ce_" + attribute + ")"
                    : "is empty",
            "is missing (the record has no value)");
    try {
      return decoder.decode(ce);
    } catch (InvalidCloudEventException e) {
      throw invalid(record, e.attribute(), e.reason(), e.getCause());
    }
  }

  private static InvalidMessageException invalid(
      ConsumerRecord<String, byte[]> record, String attribute, String reason, Throwable cause) {
    return new InvalidMessageException(
        "Kafka",
        "at topic "
            + record.topic()
            + " partition "
            + record.partition()
            + " offset "
            + record.offset(),
        attribute,
        reason,
        cause);
  }
}
