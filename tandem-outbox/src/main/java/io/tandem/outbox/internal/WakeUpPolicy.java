package io.tandem.outbox.internal;

import io.tandem.jdbc.InsertNotifications;
import io.tandem.outbox.RelayClock;
import java.time.Duration;

/**
 * How long a caught-up relay waits before it reads again, and whether it listens for inserts.
 *
 * <p>Under a steady stream of commits every read finds rows, and a notification per commit would
 * only wake the listener, the relay and the database's listening session for nothing: after {@value
 * #BUSY_CYCLES} caught-up cycles in a row that each published something, the relay switches the
 * notifications off and keeps reading, {@code lingerWhenBusy} after each cycle so that the batches
 * grow with the load; the first read that finds nothing switches them on again (and the listener
 * then calls once, for rows committed in between) before the relay waits. While no relay listens,
 * writers skip the notification (the outbox trigger checks {@code
 * tandem_relay_instance.listening}); a row inserted then but committed after the relay's last read
 * is found by one more look {@link #LATE_LOOK} later, or by the fallback poll. A cycle whose batch
 * was not acknowledged (broker down) never counts as busy: the relay then waits as usual, it does
 * not spin.
 *
 * <p>An idle relay waits for a notification at most until the fallback poll, the next coordination,
 * the late look or a recorded retry that falls due, whichever comes first.
 *
 * <p>Threads: {@link #pauseAfter} belongs to the worker thread; the listener is set and closed by
 * the relay's start and stop; the retry looks are thread-safe.
 */
public final class WakeUpPolicy {
  /**
   * Caught-up cycles in a row, each publishing something, after which the relay stops listening.
   */
  public static final int BUSY_CYCLES = 8;

  /** The one look after the notifications came back on. */
  public static final Duration LATE_LOOK = Duration.ofMillis(100);

  private final Duration pollInterval;
  private final Duration lingerWhenBusy;
  private final RetryLooks retryLooks;
  private final RelayClock clock;
  private volatile InsertNotifications listener;
  private int busyCycles;
  private long lateLookNanos; // 0: none due

  public WakeUpPolicy(
      Duration pollInterval, Duration lingerWhenBusy, RetryLooks retryLooks, RelayClock clock) {
    this.pollInterval = pollInterval;
    this.lingerWhenBusy = lingerWhenBusy;
    this.retryLooks = retryLooks;
    this.clock = clock;
  }

  /** Listens through {@code notifications} from now on (null: polls only). */
  public void listenWith(InsertNotifications notifications) {
    listener = notifications;
  }

  /** Whether the relay listens for inserts (it may have switched them off while busy). */
  public boolean hasListener() {
    return listener != null;
  }

  /** Stops listening for good; returns the listener to close, or null. */
  public InsertNotifications detachListener() {
    InsertNotifications l = listener;
    listener = null;
    return l;
  }

  /**
   * The pause after a caught-up cycle that read {@code read} rows, of which the broker acknowledged
   * {@code acknowledged}; the next coordination falls due at {@code nextCoordinationNanos}.
   */
  public Duration pauseAfter(int read, int acknowledged, long nextCoordinationNanos) {
    return keepsUp(read, acknowledged) ? lingerWhenBusy : untilNextLook(nextCoordinationNanos);
  }

  /** Whether to look again {@code lingerWhenBusy} later without waiting for a notification. */
  private boolean keepsUp(int read, int acknowledged) {
    InsertNotifications notifications = listener;
    if (notifications == null) {
      return false;
    }
    if (read > 0 && acknowledged > 0) {
      if (++busyCycles >= BUSY_CYCLES) {
        notifications.setListening(false);
        return true;
      }
      return false;
    }
    if (busyCycles >= BUSY_CYCLES) {
      lateLookNanos = clock.nanoTime() + LATE_LOOK.toNanos();
    }
    busyCycles = 0;
    notifications.setListening(true);
    return false;
  }

  private Duration untilNextLook(long nextCoordinationNanos) {
    long now = clock.nanoTime();
    long wait = Math.min(pollInterval.toNanos(), nextCoordinationNanos - now);
    // Zero when a retry fell due since the read just made began, or before it: one more read now.
    wait = Math.min(wait, retryLooks.untilNext(now));
    if (lateLookNanos != 0) {
      long untilLateLook = lateLookNanos - now;
      if (untilLateLook > 0) {
        wait = Math.min(wait, untilLateLook);
      } else {
        lateLookNanos = 0; // the read just made was that look
      }
    }
    return Duration.ofNanos(Math.max(0, wait));
  }
}
