package io.tandem.nats;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.tandem.cloudevents.CloudEventDecoder;
import io.tandem.cloudevents.CloudEventMapping;
import io.tandem.cloudevents.InvalidCloudEventException;
import io.tandem.core.Event;
import io.tandem.core.InvalidEventException;
import io.tandem.core.InvalidMessageException;
import io.tandem.nats.internal.HeaderValues;
import io.tandem.nats.internal.NatsMessageReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Maps an {@link Event} to a NATS message holding a CloudEvents 1.0 event in binary content mode
 * (CloudEvents NATS protocol binding, NATS 2.2+ headers), and back. The body is the payload's UTF-8
 * bytes; every attribute is a {@code ce-}-prefixed header, and {@code Nats-Msg-Id} carries the
 * event id so that JetStream drops a re-published event inside the stream's duplicate window:
 *
 * <table>
 *   <caption>Envelope to NATS headers</caption>
 *   <tr><th>Event</th><th>header</th></tr>
 *   <tr><td>(CloudEvents 1.0)</td><td>{@code ce-specversion: 1.0}</td></tr>
 *   <tr><td>event_id</td><td>{@code ce-id} and {@code Nats-Msg-Id}</td></tr>
 *   <tr><td>(the producing service)</td><td>{@code ce-source}</td></tr>
 *   <tr><td>event_type</td><td>{@code ce-type}</td></tr>
 *   <tr><td>aggregate_id</td><td>{@code ce-subject} and {@code ce-partitionkey}</td></tr>
 *   <tr><td>occurred_at</td><td>{@code ce-time} (RFC 3339, UTC)</td></tr>
 *   <tr><td>aggregate_version</td><td>{@code ce-sequence} (decimal)</td></tr>
 *   <tr><td>aggregate_type</td><td>{@code ce-aggregatetype}</td></tr>
 *   <tr><td>schema_version</td><td>{@code ce-schemaversion} (decimal)</td></tr>
 *   <tr><td>headers</td><td>{@code ce-<name>} per header ({@code ce-traceparent}, ...)</td></tr>
 *   <tr><td>payload</td><td>body, {@code content-type: application/json}</td></tr>
 * </table>
 *
 * <p>Header values are percent-encoded as the binding prescribes: space, {@code "}, {@code %} and
 * every byte outside printable ASCII become {@code %XX} of its UTF-8 bytes ({@code ce-subject:
 * K%C3%B6ln} for aggregate id {@code Köln}); ids, times and numbers are never affected. {@link
 * #decode} reverses it.
 *
 * <p>{@link #decode} requires {@code ce-specversion}, {@code ce-id} (a UUID), {@code ce-type},
 * {@code ce-source}, {@code ce-subject}, {@code ce-time}, {@code ce-sequence}, {@code
 * ce-aggregatetype} and a body; {@code ce-schemaversion} defaults to 1; a {@code content-type}, if
 * present, must be JSON; any other {@code ce-} header becomes an event header. Header names are
 * matched without regard to case.
 *
 * <pre>{@code
 * NatsCloudEventsCodec codec = NatsCloudEventsCodec.create("/tandem/orders-service");
 * Message message = codec.encode("tandem.order.order-42", event);
 * Event back = codec.decode(receivedMessage);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class NatsCloudEventsCodec {
  /** The {@code source} of {@link #create()}, for codecs that only decode. */
  public static final String DEFAULT_SOURCE = CloudEventMapping.DEFAULT_SOURCE;

  /** The content type of every payload. */
  public static final String CONTENT_TYPE = CloudEventMapping.CONTENT_TYPE;

  /** JetStream's de-duplication header; Tandem sets it to the event id. */
  public static final String MSG_ID_HEADER = "Nats-Msg-Id";

  private static final String PREFIX = NatsMessageReader.PREFIX;
  private static final CloudEventDecoder DECODER =
      CloudEventDecoder.of(
          attribute -> "is missing (header ce-" + attribute + ")",
          "is missing (the message has no body)");

  private final URI source;

  private NatsCloudEventsCodec(URI source) {
    this.source = source;
  }

  /** A codec whose events carry {@code source} {@value #DEFAULT_SOURCE}; enough for decoding. */
  public static NatsCloudEventsCodec create() {
    return create(DEFAULT_SOURCE);
  }

  /**
   * A codec whose encoded events carry {@code source}, a URI reference naming the producing
   * service, e.g. {@code /tandem/orders-service}.
   *
   * @throws IllegalArgumentException if {@code source} is blank or not a URI reference
   */
  public static NatsCloudEventsCodec create(String source) {
    return new NatsCloudEventsCodec(CloudEventMapping.source(source));
  }

  /** The CloudEvents {@code source} of the events this codec encodes. */
  public String source() {
    return source.toString();
  }

  /**
   * The message that carries {@code event} to {@code subject}.
   *
   * @throws InvalidEventException if an event header collides with a CloudEvents attribute
   */
  public Message encode(String subject, Event event) {
    return NatsMessage.builder()
        .subject(subject)
        .headers(headers(event))
        .data(event.payload().getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /**
   * The headers of {@code event}'s message: {@code Nats-Msg-Id}, the {@code ce-} attributes and
   * {@code content-type}.
   *
   * @throws InvalidEventException if an event header collides with a CloudEvents attribute
   */
  public Headers headers(Event event) {
    Headers headers = new Headers();
    headers.put(MSG_ID_HEADER, event.eventId().toString());
    CloudEventMapping.attributes(event, source)
        .forEach((name, value) -> headers.put(PREFIX + name, HeaderValues.encode(value)));
    headers.put(NatsMessageReader.CONTENT_TYPE, CONTENT_TYPE);
    return headers;
  }

  /**
   * The event that {@code message} carries.
   *
   * @throws InvalidMessageException if the message is not a binary-mode CloudEvent with Tandem's
   *     envelope; when the envelope fails {@link Event}'s own validation (for example a payload
   *     that is not JSON), the {@link InvalidEventException} is wrapped as the cause
   */
  public Event decode(Message message) {
    Decoding d = new Decoding(message);
    Map<String, String> headers = d.headers();
    String specVersion = headers.get(PREFIX + "specversion");
    if (specVersion == null) {
      throw d.invalid(
          "specversion", "is missing (header ce-specversion): not a binary-mode CloudEvent", null);
    }
    for (String attribute : new String[] {"id", "source", "type"}) {
      if (headers.get(PREFIX + attribute) == null) {
        throw d.invalid(attribute, "is missing (header ce-" + attribute + ")", null);
      }
    }
    CloudEvent ce;
    try {
      ce =
          new NatsMessageReader(SpecVersion.parse(specVersion), headers, message.getData())
              .toEvent();
    } catch (RuntimeException e) {
      throw d.invalid(CloudEventDecoder.failedAttribute(e), "is invalid: " + e.getMessage(), e);
    }
    try {
      return DECODER.decode(ce);
    } catch (InvalidCloudEventException e) {
      throw d.invalid(e.attribute(), e.reason(), e.getCause());
    }
  }

  /** The message being decoded, for errors that say where it came from. */
  private record Decoding(Message message) {
    /** The {@code ce-} headers and {@code content-type}, names lowercased, values decoded. */
    Map<String, String> headers() {
      Map<String, String> decoded = new LinkedHashMap<>();
      Headers headers = message.getHeaders();
      if (headers == null) {
        return decoded;
      }
      for (Map.Entry<String, List<String>> header : headers.entrySet()) {
        String name = header.getKey().toLowerCase(Locale.ROOT);
        List<String> values = header.getValue();
        if (values.isEmpty()
            || !(name.startsWith(PREFIX) || name.equals(NatsMessageReader.CONTENT_TYPE))) {
          continue;
        }
        String value = values.get(values.size() - 1);
        try {
          decoded.put(name, HeaderValues.decode(value));
        } catch (IllegalArgumentException e) {
          String attribute =
              name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : "datacontenttype";
          throw invalid(attribute, "is not percent-encoded UTF-8: " + e.getMessage(), e);
        }
      }
      return decoded;
    }

    InvalidMessageException invalid(String attribute, String reason, Throwable cause) {
      return new InvalidMessageException("NATS", location(), attribute, reason, cause);
    }

    private String location() {
      String where = "on subject " + message.getSubject();
      if (message.isJetStream()) {
        try {
          var meta = message.metaData();
          return where
              + " (stream "
              + meta.getStream()
              + " sequence "
              + meta.streamSequence()
              + ")";
        } catch (RuntimeException e) {
          return where;
        }
      }
      return where;
    }
  }
}
