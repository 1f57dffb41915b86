package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** A delivered message for the processor's tests; counts its acknowledgements. */
final class TestMessage implements InboundMessage {
  private final Event event;
  private final String invalidBody;
  final AtomicInteger acks = new AtomicInteger();

  private TestMessage(Event event, String invalidBody) {
    this.event = event;
    this.invalidBody = invalidBody;
  }

  static TestMessage of(Event event) {
    return new TestMessage(event, null);
  }

  static TestMessage invalid(String body) {
    return new TestMessage(null, body);
  }

  @Override
  public String key() {
    return event == null ? "invalid" : event.aggregateId();
  }

  @Override
  public String origin() {
    return "test " + (event == null ? "invalid" : event.eventId());
  }

  @Override
  public Map<String, String> rawHeaders() {
    return Map.of("content-type", "application/json");
  }

  @Override
  public byte[] rawBody() {
    return (event == null ? invalidBody : event.payload()).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Event decode() {
    if (event == null) {
      throw new IllegalArgumentException("body is not a CloudEvent: " + invalidBody);
    }
    return event;
  }

  @Override
  public void acknowledge() {
    acks.incrementAndGet();
  }
}
