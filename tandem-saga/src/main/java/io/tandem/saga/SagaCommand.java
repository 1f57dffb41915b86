package io.tandem.saga;

import io.tandem.core.Event;
import java.util.UUID;

/**
 * A command a saga sent to a participant: which saga, which step, and the saga data (the event's
 * payload, readable with {@link #dataAs}).
 */
public record SagaCommand(UUID sagaId, String sagaType, String step, int attempt, Event event) {
  /** The saga data as {@code type}; unknown fields are ignored. */
  public <T> T dataAs(Class<T> type) {
    return event.payloadAs(type);
  }

  /** The command name (the event type), e.g. {@code AuthorizePayment}. */
  public String name() {
    return event.eventType();
  }
}
