package io.tandem.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A relay clock that a test moves forward by {@link #advance}, instead of sleeping. {@link
 * #frozen()} moves only then (for unit tests of pure logic, exact to the nanosecond); {@link
 * #running()} also runs with the system clock, so the relay's view of its leases never lags behind
 * the database's (for relays that talk to a database, whose own clock keeps running). The wall
 * clock is the system's plus the advance.
 */
public final class ManualRelayClock implements RelayClock {
  private final long origin = System.nanoTime();
  private final boolean running;
  private final AtomicLong advanced = new AtomicLong();

  private ManualRelayClock(boolean running) {
    this.running = running;
  }

  /** A clock that stands still between advances. */
  public static ManualRelayClock frozen() {
    return new ManualRelayClock(false);
  }

  /** A clock that runs with the system's and jumps forward on each advance. */
  public static ManualRelayClock running() {
    return new ManualRelayClock(true);
  }

  /** Moves the clock forward by {@code d}. */
  public void advance(Duration d) {
    advanced.addAndGet(d.toNanos());
  }

  @Override
  public long nanoTime() {
    return (running ? System.nanoTime() : origin) + advanced.get();
  }

  @Override
  public Instant now() {
    return Instant.now().plusNanos(advanced.get());
  }
}
