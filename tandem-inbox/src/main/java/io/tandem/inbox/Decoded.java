package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;

/** A delivered message with its event decoded, or the reason it could not be. */
record Decoded(InboundMessage message, Event event, RuntimeException invalid) {
  static Decoded of(InboundMessage message) {
    try {
      return new Decoded(message, message.decode(), null);
    } catch (RuntimeException invalid) {
      return new Decoded(message, null, invalid);
    }
  }

  /** What keeps the message on one lane: its aggregate, else the broker's key or its origin. */
  String laneKey() {
    if (event != null) {
      return event.aggregateType() + '\u0000' + event.aggregateId();
    }
    return message.key() != null ? message.key() : message.origin();
  }
}
