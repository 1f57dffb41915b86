package io.tandem.outbox.internal;

import java.util.TreeSet;

/**
 * When an idle relay must read again because a retry it recorded falls due: every due time is kept
 * (in {@link System#nanoTime()} terms, rounded up to the millisecond), not only the earliest, so
 * that a look that is consumed never hides a later one. Keeps at most {@value #MAX_LOOKS}; the
 * latest are dropped beyond that, and the rows they stood for wait for the relay's fallback poll.
 *
 * <p>Thread-safe: failures are recorded on the worker and on pipeline threads.
 */
public final class RetryLooks {
  /** The most due times kept. */
  public static final int MAX_LOOKS = 1024;

  private static final long MILLI = 1_000_000L;

  private final TreeSet<Long> due = new TreeSet<>();
  private final long origin;

  /** Looks measured from now on {@link System#nanoTime()}. */
  public RetryLooks() {
    this(System.nanoTime());
  }

  /** Looks measured from {@code originNanos} on the relay's clock. */
  public RetryLooks(long originNanos) {
    this.origin = originNanos;
  }

  /** Notes that a retry falls due at {@code dueNanos} ({@link System#nanoTime()} terms). */
  public synchronized void add(long dueNanos) {
    long offset = dueNanos - origin;
    due.add(Math.floorDiv(offset + MILLI - 1, MILLI)); // rounded up: never a look before it is due
    if (due.size() > MAX_LOOKS) {
      due.pollLast();
    }
  }

  /**
   * How long until the next look, at {@code nowNanos}: zero when one or more fell due (they are
   * consumed: the caller reads now), {@link Long#MAX_VALUE} when none is pending.
   */
  public synchronized long untilNext(long nowNanos) {
    long nowMillis = Math.floorDiv(nowNanos - origin, MILLI);
    boolean fell = false;
    while (!due.isEmpty() && due.first() <= nowMillis) {
      due.pollFirst();
      fell = true;
    }
    if (fell) {
      return 0;
    }
    return due.isEmpty() ? Long.MAX_VALUE : due.first() * MILLI + origin - nowNanos;
  }

  /** How many due times are pending. */
  public synchronized int size() {
    return due.size();
  }
}
