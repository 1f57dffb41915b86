package io.tandem.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import io.tandem.cloudevents.CloudEventDecoder;
import io.tandem.cloudevents.CloudEventMapping;
import io.tandem.cloudevents.InvalidCloudEventException;
import io.tandem.core.Event;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import io.tandem.rabbitmq.internal.ExchangeNames;
import io.tandem.rabbitmq.internal.HeaderText;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Maps an {@link Event} to a RabbitMQ message holding a CloudEvents 1.0 event in binary content
 * mode, and back.
 *
 * <p>CloudEvents defines no binding for AMQP 0-9-1, RabbitMQ's protocol; Tandem follows the
 * CloudEvents AMQP (1.0) binding's naming instead: every attribute is a message header named {@code
 * cloudEvents_} + the attribute name, holding a string; {@code datacontenttype} is the message's
 * {@code content_type}; the body is the data. A consumer that follows that binding's naming reads
 * these messages as they are.
 *
 * <table>
 *   <caption>Envelope to message</caption>
 *   <tr><th>Event</th><th>AMQP 0-9-1</th></tr>
 *   <tr><td>event_id</td><td>header {@code cloudEvents_id}, property {@code message_id}</td></tr>
 *   <tr><td>(the producing service)</td><td>header {@code cloudEvents_source}</td></tr>
 *   <tr><td>(constant 1.0)</td><td>header {@code cloudEvents_specversion}</td></tr>
 *   <tr><td>event_type</td><td>header {@code cloudEvents_type}</td></tr>
 *   <tr><td>aggregate_id</td><td>header {@code cloudEvents_subject}, header {@code
 *       cloudEvents_partitionkey}, the routing key</td></tr>
 *   <tr><td>occurred_at</td><td>header {@code cloudEvents_time} (RFC 3339, microseconds),
 *       property {@code timestamp} (whole seconds)</td></tr>
 *   <tr><td>aggregate_version</td><td>header {@code cloudEvents_sequence} (decimal string)</td></tr>
 *   <tr><td>aggregate_type</td><td>header {@code cloudEvents_aggregatetype}</td></tr>
 *   <tr><td>schema_version</td><td>header {@code cloudEvents_schemaversion} (decimal
 *       string)</td></tr>
 *   <tr><td>headers</td><td>one header {@code cloudEvents_<name>} per entry ({@code
 *       cloudEvents_traceparent}, {@code cloudEvents_tenant}, ...)</td></tr>
 *   <tr><td>payload</td><td>the body (UTF-8), property {@code content_type}
 *       {@code application/json}</td></tr>
 *   <tr><td>(durability)</td><td>property {@code delivery_mode} 2 (persistent)</td></tr>
 * </table>
 *
 * <p>{@link #decode} requires {@code specversion} 1.0, {@code id} (a UUID), {@code source}, {@code
 * type}, {@code subject}, {@code time}, {@code sequence}, {@code aggregatetype} and a body; {@code
 * schemaversion} defaults to 1 when absent; any other {@code cloudEvents_} header becomes an event
 * header, and headers without the prefix (for example RabbitMQ's {@code x-death}) are ignored. The
 * older prefix {@code cloudEvents:} is read as well. A content type other than JSON is refused.
 *
 * <pre>{@code
 * RabbitCloudEventsCodec codec = RabbitCloudEventsCodec.create("/tandem/orders-service");
 * RabbitMessage message = codec.encode("tandem.order", event);
 * Event back = codec.decode(channel.basicGet("orders", false));
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class RabbitCloudEventsCodec {
  /** The {@code source} of {@link #create()}, for codecs that only decode. */
  public static final String DEFAULT_SOURCE = CloudEventMapping.DEFAULT_SOURCE;

  /** The content type of every payload. */
  public static final String CONTENT_TYPE = CloudEventMapping.CONTENT_TYPE;

  /** The prefix of every CloudEvents header. */
  public static final String HEADER_PREFIX = "cloudEvents_";

  /** The prefix an earlier draft of the AMQP binding used; accepted when decoding. */
  public static final String LEGACY_HEADER_PREFIX = "cloudEvents:";

  /** {@code delivery_mode} of a persistent message. */
  public static final int PERSISTENT = 2;

  private static final CloudEventDecoder DECODER =
      CloudEventDecoder.of(
              attribute -> "is missing (header " + HEADER_PREFIX + attribute + ")",
              "is missing (the message has no body)")
          .withEmpty(attribute -> "is empty (header " + HEADER_PREFIX + attribute + ")");

  private final URI source;
  private final String sourceText;

  private RabbitCloudEventsCodec(URI source) {
    this.source = source;
    this.sourceText = source.toString();
  }

  /** A codec whose events carry {@code source} {@value #DEFAULT_SOURCE}; enough for decoding. */
  public static RabbitCloudEventsCodec create() {
    return create(DEFAULT_SOURCE);
  }

  /**
   * A codec whose encoded events carry {@code source}, a URI reference naming the producing
   * service, e.g. {@code /tandem/orders-service}.
   *
   * @throws IllegalArgumentException if {@code source} is blank or not a URI reference
   */
  public static RabbitCloudEventsCodec create(String source) {
    return new RabbitCloudEventsCodec(CloudEventMapping.source(source));
  }

  /** The CloudEvents {@code source} of the events this codec encodes. */
  public String source() {
    return source.toString();
  }

  /**
   * The message that carries {@code event} to {@code exchange}, routed by its aggregate id.
   *
   * @throws IllegalArgumentException if {@code exchange} is not a legal exchange name
   * @throws InvalidEventException if the aggregate id is too long for an AMQP routing key (255
   *     bytes of UTF-8), or an event header's name collides with a CloudEvents attribute
   */
  public RabbitMessage encode(String exchange, Event event) {
    ExchangeNames.validate("exchange", exchange);
    try {
      ExchangeNames.shortString("routing key", event.aggregateId());
    } catch (IllegalArgumentException e) {
      throw new InvalidEventException(
          "aggregate_id", "cannot be a RabbitMQ routing key: " + e.getMessage());
    }
    Map<String, Object> headers = new LinkedHashMap<>();
    CloudEventMapping.writeAttributes(
        event, sourceText, (name, value) -> headers.put(HEADER_PREFIX + name, value));
    AMQP.BasicProperties properties =
        new AMQP.BasicProperties.Builder()
            .messageId(event.eventId().toString())
            .deliveryMode(PERSISTENT)
            .contentType(CONTENT_TYPE)
            .timestamp(Date.from(event.occurredAt()))
            .headers(Collections.unmodifiableMap(headers))
            .build();
    return new RabbitMessage(
        exchange,
        event.aggregateId(),
        properties,
        event.payload().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The event that a message fetched with {@code basic.get} carries.
   *
   * @throws InvalidMessageException if the message is not a binary-mode CloudEvent with Tandem's
   *     envelope (see {@link #decode(Envelope, AMQP.BasicProperties, byte[])})
   */
  public Event decode(GetResponse response) {
    return decode(response.getEnvelope(), response.getProps(), response.getBody());
  }

  /**
   * The event that a message delivered to a consumer carries.
   *
   * @throws InvalidMessageException if the message is not a binary-mode CloudEvent with Tandem's
   *     envelope (see {@link #decode(Envelope, AMQP.BasicProperties, byte[])})
   */
  public Event decode(Delivery delivery) {
    return decode(delivery.getEnvelope(), delivery.getProperties(), delivery.getBody());
  }

  /**
   * The event that a message carries.
   *
   * @param envelope where the message came from, for error messages; may be null
   * @throws InvalidMessageException naming the attribute, if the message is not a binary-mode
   *     CloudEvent with Tandem's envelope; when the envelope fails {@link Event}'s own validation
   *     (for example a payload that is not JSON), the {@link InvalidEventException} is wrapped as
   *     the cause
   */
  public Event decode(Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
    Map<String, String> attributes = attributes(properties);
    String specversion = attributes.get("specversion");
    if (specversion == null) {
      throw invalid(
          envelope,
          "specversion",
          "is missing (header " + HEADER_PREFIX + "specversion): not a binary-mode CloudEvent",
          null);
    }
    if (!specversion.equals("1.0")) {
      throw invalid(envelope, "specversion", "is '" + specversion + "', expected 1.0", null);
    }
    String contentType = properties == null ? null : properties.getContentType();
    if (contentType == null) {
      contentType = attributes.get("datacontenttype");
    }
    try {
      return DECODER.decode(attributes, contentType, body);
    } catch (InvalidCloudEventException e) {
      throw invalid(envelope, e.attribute(), e.reason(), e.getCause());
    }
  }

  /** The CloudEvents attributes among the headers, by name; the current prefix wins. */
  private static Map<String, String> attributes(AMQP.BasicProperties properties) {
    Map<String, String> attributes = new LinkedHashMap<>();
    Map<String, Object> headers = properties == null ? null : properties.getHeaders();
    if (headers == null) {
      return attributes;
    }
    headers.forEach(
        (key, value) -> {
          if (value != null
              && key.startsWith(LEGACY_HEADER_PREFIX)
              && key.length() > LEGACY_HEADER_PREFIX.length()) {
            attributes.putIfAbsent(
                key.substring(LEGACY_HEADER_PREFIX.length()), HeaderText.text(value));
          }
        });
    headers.forEach(
        (key, value) -> {
          if (value != null
              && key.startsWith(HEADER_PREFIX)
              && key.length() > HEADER_PREFIX.length()) {
            attributes.put(key.substring(HEADER_PREFIX.length()), HeaderText.text(value));
          }
        });
    return attributes;
  }

  private static InvalidMessageException invalid(
      Envelope envelope, String attribute, String reason, Throwable cause) {
    String location =
        envelope == null
            ? null
            : "from exchange '"
                + envelope.getExchange()
                + "' routing key '"
                + envelope.getRoutingKey()
                + "' delivery tag "
                + envelope.getDeliveryTag();
    return new InvalidMessageException("RabbitMQ", location, attribute, reason, cause);
  }
}
