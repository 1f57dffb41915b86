package io.tandem.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.FaultInjector;
import io.tandem.outbox.internal.RelayLifecycle.State;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RelayLifecycleTest {
  private static final Map<State, Set<State>> EXPECTED =
      Map.of(
          State.NEW, EnumSet.of(State.RUNNING, State.STOPPED),
          State.RUNNING, EnumSet.of(State.STOPPING, State.CRASHED),
          State.STOPPING, EnumSet.of(State.STOPPED, State.CRASHED),
          State.STOPPED, EnumSet.noneOf(State.class),
          State.CRASHED, EnumSet.noneOf(State.class));

  /** Every pair of states: the table allows exactly the expected moves, and refuses the rest. */
  @Test
  void everyTransitionIsEitherInTheTableOrRefused() {
    for (State from : State.values()) {
      for (State to : State.values()) {
        RelayLifecycle lifecycle = at(from);
        boolean expected = EXPECTED.get(from).contains(to);
        assertThat(RelayLifecycle.allowed(from, to)).as("%s -> %s", from, to).isEqualTo(expected);
        if (expected) {
          lifecycle.moveTo(to);
          assertThat(lifecycle.state()).isEqualTo(to);
        } else {
          assertThatThrownBy(() -> lifecycle.moveTo(to))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage("relay r cannot go from " + from + " to " + to);
          assertThat(lifecycle.state()).isEqualTo(from);
        }
      }
    }
  }

  @Test
  void moveIfMovesOnlyFromTheExpectedState() {
    RelayLifecycle lifecycle = at(State.NEW);
    assertThat(lifecycle.moveIf(State.RUNNING, State.STOPPING)).isFalse();
    assertThat(lifecycle.state()).isEqualTo(State.NEW);
    assertThat(lifecycle.moveIf(State.NEW, State.RUNNING)).isTrue();
    assertThat(lifecycle.state()).isEqualTo(State.RUNNING);
  }

  @Test
  void aSimulatedCrashOnAnyThreadIsRethrownByEveryLaterCycle() throws Exception {
    RelayLifecycle lifecycle = at(State.RUNNING);
    lifecycle.rethrowCrash(); // none yet
    FaultInjector.SimulatedCrash crash = new FaultInjector.SimulatedCrash("relay.after-ack");
    Thread publisher = new Thread(() -> lifecycle.crashed(crash));
    publisher.start();
    publisher.join();
    assertThatThrownBy(lifecycle::rethrowCrash).isSameAs(crash);
    assertThatThrownBy(lifecycle::rethrowCrash).isSameAs(crash);
  }

  /** A lifecycle brought to {@code state} through legal moves. */
  private static RelayLifecycle at(State state) {
    RelayLifecycle lifecycle = new RelayLifecycle("r");
    switch (state) {
      case NEW -> {}
      case RUNNING -> lifecycle.moveTo(State.RUNNING);
      case STOPPING -> {
        lifecycle.moveTo(State.RUNNING);
        lifecycle.moveTo(State.STOPPING);
      }
      case STOPPED -> lifecycle.moveTo(State.STOPPED);
      case CRASHED -> {
        lifecycle.moveTo(State.RUNNING);
        lifecycle.moveTo(State.CRASHED);
      }
    }
    return lifecycle;
  }
}
