package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.internal.EventJson;
import io.tandem.inbox.internal.ParkingStore.ParkedEvent;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A parked event being applied: its broker message was settled when it was parked, so nothing
 * settles this one ({@link #acknowledge()} refuses); the dead-letter writer removes its parked row.
 */
record ParkedMessage(ParkedEvent parked) implements InboundMessage {
  Event event() {
    return parked.event();
  }

  @Override
  public String key() {
    return parked.event().aggregateId();
  }

  @Override
  public String origin() {
    return parked.origin() + " (parked)";
  }

  @Override
  public Map<String, String> rawHeaders() {
    return Map.of();
  }

  @Override
  public byte[] rawBody() {
    return EventJson.write(parked.event()).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Event decode() {
    return parked.event();
  }

  @Override
  public void acknowledge() {
    throw new UnsupportedOperationException("a parked event has no broker message to settle");
  }
}
