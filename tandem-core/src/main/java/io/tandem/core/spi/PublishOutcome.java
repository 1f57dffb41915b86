package io.tandem.core.spi;

import io.tandem.core.PublishException;
import java.util.Objects;
import java.util.UUID;

/**
 * What the broker answered for one event: acknowledged, or a classified {@link PublishException}.
 */
public record PublishOutcome(UUID eventId, PublishException failure) {

  public PublishOutcome {
    Objects.requireNonNull(eventId, "eventId");
  }

  public static PublishOutcome acknowledged(UUID eventId) {
    return new PublishOutcome(eventId, null);
  }

  public static PublishOutcome failed(UUID eventId, PublishException failure) {
    return new PublishOutcome(eventId, Objects.requireNonNull(failure, "failure"));
  }

  /** True when the broker durably accepted the event. */
  public boolean acknowledged() {
    return failure == null;
  }
}
