package io.tandem.outbox.internal;

import io.tandem.core.FaultInjector;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The lifecycle of one relay, with its one transition table:
 *
 * <pre>
 * NEW      -> RUNNING (start), STOPPED (closed before it started)
 * RUNNING  -> STOPPING (close, or the worker interrupted), CRASHED (a simulated crash)
 * STOPPING -> STOPPED (the worker finished), CRASHED
 * STOPPED, CRASHED: final
 * </pre>
 *
 * An illegal transition throws. Also holds the simulated crash of a fault drill once one happened
 * on any of the relay's threads: from then on the relay is dead and every cycle rethrows it.
 * Thread-safe.
 */
public final class RelayLifecycle {
  /** The states; their names appear in {@code RelayStatus.state()}. */
  public enum State {
    NEW,
    RUNNING,
    STOPPING,
    STOPPED,
    CRASHED
  }

  private static final Map<State, Set<State>> NEXT = new EnumMap<>(State.class);

  static {
    NEXT.put(State.NEW, EnumSet.of(State.RUNNING, State.STOPPED));
    NEXT.put(State.RUNNING, EnumSet.of(State.STOPPING, State.CRASHED));
    NEXT.put(State.STOPPING, EnumSet.of(State.STOPPED, State.CRASHED));
    NEXT.put(State.STOPPED, EnumSet.noneOf(State.class));
    NEXT.put(State.CRASHED, EnumSet.noneOf(State.class));
  }

  private final String relayId;
  private volatile State state = State.NEW;
  private volatile FaultInjector.SimulatedCrash crash;

  public RelayLifecycle(String relayId) {
    this.relayId = relayId;
  }

  /** Whether the table allows {@code from -> to}. */
  public static boolean allowed(State from, State to) {
    return NEXT.get(from).contains(to);
  }

  public State state() {
    return state;
  }

  /**
   * Moves to {@code next}.
   *
   * @throws IllegalStateException when the table does not allow it from the current state
   */
  public synchronized void moveTo(State next) {
    if (!allowed(state, next)) {
      throw new IllegalStateException(
          "relay " + relayId + " cannot go from " + state + " to " + next);
    }
    state = next;
  }

  /** Moves to {@code next} if the state is {@code expected}; returns whether it moved. */
  public synchronized boolean moveIf(State expected, State next) {
    if (state != expected) {
      return false;
    }
    moveTo(next);
    return true;
  }

  /** Notes a simulated crash, on whichever thread it happened. */
  public void crashed(FaultInjector.SimulatedCrash simulated) {
    crash = simulated;
  }

  /** Rethrows the simulated crash, if one happened: a dead relay does nothing more. */
  public void rethrowCrash() {
    FaultInjector.SimulatedCrash c = crash;
    if (c != null) {
      throw c;
    }
  }
}
