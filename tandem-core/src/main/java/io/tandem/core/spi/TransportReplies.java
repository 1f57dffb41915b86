package io.tandem.core.spi;

import java.util.List;
import java.util.UUID;

/**
 * The {@code Transport.publish} contract both relays rely on before marking anything: one outcome
 * per event, in the events' order. A transport that breaks it is a bug, not a broker failure.
 */
public final class TransportReplies {
  private TransportReplies() {}

  /**
   * @param transport the transport's name, for the message
   * @param sent the event ids handed over, in order
   * @throws IllegalStateException if the outcomes do not answer {@code sent} one by one
   */
  public static void check(String transport, List<UUID> sent, List<PublishOutcome> outcomes) {
    if (outcomes.size() != sent.size()) {
      throw new IllegalStateException(
          "transport "
              + transport
              + " returned "
              + outcomes.size()
              + " outcomes for "
              + sent.size()
              + " events");
    }
    for (int i = 0; i < sent.size(); i++) {
      if (!outcomes.get(i).eventId().equals(sent.get(i))) {
        throw new IllegalStateException(
            "transport " + transport + " returned outcomes out of order at index " + i);
      }
    }
  }
}
