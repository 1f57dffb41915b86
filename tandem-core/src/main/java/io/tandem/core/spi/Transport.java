package io.tandem.core.spi;

import io.tandem.core.Event;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Publishes events to a broker and reports, per event, whether the broker acknowledged it.
 *
 * <p>The relay calls {@link #publish} outside any database transaction and marks an event published
 * only when its outcome is {@link PublishOutcome#acknowledged()}. An implementation therefore
 * reports success only once the broker has durably accepted the message (for Kafka: the producer's
 * future completed with acks=all), sends the batch asynchronously and then waits, and classifies
 * failures ({@link io.tandem.core.ErrorClass}).
 *
 * <p>Implementations must be thread-safe; the relay may call {@link #publish} from several threads.
 */
public interface Transport extends AutoCloseable {

  /** A short name for logs and metrics, e.g. {@code kafka}. */
  String name();

  /**
   * Publishes every event and waits at most {@code timeout} for all acknowledgements.
   *
   * @return one outcome per event, in the order of {@code events}; an event without an
   *     acknowledgement by the deadline is a {@link io.tandem.core.ErrorClass#TIMEOUT} failure
   */
  List<PublishOutcome> publish(List<Event> events, Duration timeout);

  /**
   * Checks {@link #publish}'s arguments as Tandem's transports do, for an implementation to call
   * first: {@code Transport.checkPublishArguments(events, timeout);}.
   *
   * @throws NullPointerException if {@code events} is null
   * @throws IllegalArgumentException if {@code timeout} is null, zero or negative
   */
  static void checkPublishArguments(List<Event> events, Duration timeout) {
    Objects.requireNonNull(events, "events must not be null");
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be a positive duration, was " + timeout);
    }
  }

  /** Flushes nothing further and releases the client; in-flight sends are abandoned. */
  @Override
  void close();
}
