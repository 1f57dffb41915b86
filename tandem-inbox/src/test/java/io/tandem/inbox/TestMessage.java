package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A delivered message for the processor's tests (and, through the test-jar, other modules'); counts
 * its acknowledgements.
 */
public final class TestMessage implements InboundMessage {
  private final Event event;
  private final String invalidBody;

  /** How many times it was acknowledged. */
  public final AtomicInteger acks = new AtomicInteger();

  private TestMessage(Event event, String invalidBody) {
    this.event = event;
    this.invalidBody = invalidBody;
  }

  /** A message carrying {@code event}. */
  public static TestMessage of(Event event) {
    return new TestMessage(event, null);
  }

  /** A message whose body is not a Tandem event. */
  public static TestMessage invalid(String body) {
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
