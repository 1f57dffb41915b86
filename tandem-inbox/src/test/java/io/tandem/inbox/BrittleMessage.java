package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** A message whose acknowledgement fails with an Error the first {@code failures} times. */
final class BrittleMessage implements InboundMessage {
  final Event event;
  final AtomicInteger failures;
  final AtomicInteger acks = new AtomicInteger();

  BrittleMessage(Event event, int failures) {
    this.event = event;
    this.failures = new AtomicInteger(failures);
  }

  @Override
  public String key() {
    return event.aggregateId();
  }

  @Override
  public String origin() {
    return "brittle " + event.eventId();
  }

  @Override
  public Map<String, String> rawHeaders() {
    return Map.of();
  }

  @Override
  public byte[] rawBody() {
    return event.payload().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Event decode() {
    return event;
  }

  @Override
  public void acknowledge() {
    if (failures.getAndDecrement() > 0) {
      throw new LinkageError("the broker client's class failed to link");
    }
    acks.incrementAndGet();
  }
}
