package io.tandem.cdc.internal;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A CDC relay's lifecycle, one transition table: {@code NEW → STARTING → STREAMING → STOPPING →
 * STOPPED}, with {@code FAILED} when the engine stops on its own (or never streamed) and {@code
 * STOPPING} from any state but {@code STOPPED}. An illegal transition throws. Thread-safe.
 */
public final class RelayLifecycle {
  /** The relay's states. */
  public enum State {
    NEW,
    STARTING,
    STREAMING,
    FAILED,
    STOPPING,
    STOPPED
  }

  private static final Map<State, Set<State>> NEXT =
      Map.of(
          State.NEW, EnumSet.of(State.STARTING, State.STOPPING),
          State.STARTING, EnumSet.of(State.STREAMING, State.FAILED, State.STOPPING),
          State.STREAMING, EnumSet.of(State.FAILED, State.STOPPING),
          State.FAILED, EnumSet.of(State.STOPPING),
          State.STOPPING, EnumSet.of(State.STOPPED),
          State.STOPPED, EnumSet.noneOf(State.class));

  private final String relayId;
  private State state = State.NEW;

  public RelayLifecycle(String relayId) {
    this.relayId = relayId;
  }

  public synchronized State state() {
    return state;
  }

  /**
   * Moves to {@code to}.
   *
   * @throws IllegalStateException if the table has no such transition from the current state
   */
  public synchronized void moveTo(State to) {
    if (!NEXT.get(state).contains(to)) {
      throw new IllegalStateException(
          "CDC relay " + relayId + " cannot go from " + state + " to " + to);
    }
    state = to;
  }

  /** Moves to {@code to} if the table allows it from the current state; false if not. */
  public synchronized boolean moveIfAllowed(State to) {
    if (!NEXT.get(state).contains(to)) {
      return false;
    }
    state = to;
    return true;
  }

  /** Whether the relay is stopping or stopped (its loops give up waiting). */
  public synchronized boolean closing() {
    return state == State.STOPPING || state == State.STOPPED;
  }
}
