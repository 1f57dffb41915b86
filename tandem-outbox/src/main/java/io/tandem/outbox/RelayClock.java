package io.tandem.outbox;

import java.time.Instant;

/**
 * The relay's time source: a monotonic nanosecond counter for its own deadlines (how long it may
 * act on its leases, when it coordinates, polls, lingers or looks for a retry that fell due, the
 * publish timeout) and the wall clock for the publish latency it measures from an event's {@code
 * occurredAt}. The database's own clock still decides lease expiry and retry due times.
 *
 * <pre>{@code
 * OutboxRelay relay = OutboxRelay.builder()
 *     .dataSource(dataSource)
 *     .transport(transport)
 *     .clock(testClock) // a test moves time forward instead of sleeping
 *     .build();
 * }</pre>
 *
 * <p>Default {@link #SYSTEM}. A relay's started worker still waits in real time for the durations
 * it computes from this clock; a clock under a test's control is meant for relays driven with
 * {@link OutboxRelay#runOnce()}. Implementations must be thread-safe: the relay's worker, publisher
 * and recorder threads all read it.
 */
public interface RelayClock {
  /** {@link System#nanoTime()} and {@link Instant#now()}. */
  RelayClock SYSTEM =
      new RelayClock() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public Instant now() {
          return Instant.now();
        }
      };

  /** A monotonic counter in nanoseconds with an arbitrary origin, as {@link System#nanoTime()}. */
  long nanoTime();

  /** The current wall-clock time. */
  Instant now();
}
