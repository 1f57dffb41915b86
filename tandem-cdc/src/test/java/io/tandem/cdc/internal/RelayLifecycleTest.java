package io.tandem.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.cdc.internal.RelayLifecycle.State;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RelayLifecycleTest {
  /** The table as the relay's life is meant to be, written out independently of the class. */
  private static final Map<State, Set<State>> EXPECTED =
      Map.of(
          State.NEW, EnumSet.of(State.STARTING, State.STOPPING),
          State.STARTING, EnumSet.of(State.STREAMING, State.FAILED, State.STOPPING),
          State.STREAMING, EnumSet.of(State.FAILED, State.STOPPING),
          State.FAILED, EnumSet.of(State.STOPPING),
          State.STOPPING, EnumSet.of(State.STOPPED),
          State.STOPPED, EnumSet.noneOf(State.class));

  @Test
  void everyPairOfStatesIsAllowedExactlyAsTheTableSays() {
    for (State from : State.values()) {
      for (State to : State.values()) {
        RelayLifecycle lifecycle = at(from);
        if (EXPECTED.get(from).contains(to)) {
          lifecycle.moveTo(to);
          assertThat(lifecycle.state()).isEqualTo(to);
        } else {
          assertThatThrownBy(() -> lifecycle.moveTo(to))
              .as(from + " -> " + to)
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("cannot go from " + from + " to " + to);
          assertThat(lifecycle.moveIfAllowed(to)).isFalse();
          assertThat(lifecycle.state()).isEqualTo(from);
        }
      }
    }
  }

  @Test
  void closingOnlyOnceStoppingBegan() {
    RelayLifecycle lifecycle = new RelayLifecycle("r");
    lifecycle.moveTo(State.STARTING);
    lifecycle.moveTo(State.STREAMING);
    assertThat(lifecycle.closing()).isFalse();
    lifecycle.moveTo(State.STOPPING);
    assertThat(lifecycle.closing()).isTrue();
    lifecycle.moveTo(State.STOPPED);
    assertThat(lifecycle.closing()).isTrue();
  }

  /** A lifecycle brought to {@code state} along allowed moves. */
  private static RelayLifecycle at(State state) {
    RelayLifecycle lifecycle = new RelayLifecycle("r");
    switch (state) {
      case NEW -> {}
      case STARTING -> lifecycle.moveTo(State.STARTING);
      case STREAMING -> {
        lifecycle.moveTo(State.STARTING);
        lifecycle.moveTo(State.STREAMING);
      }
      case FAILED -> {
        lifecycle.moveTo(State.STARTING);
        lifecycle.moveTo(State.FAILED);
      }
      case STOPPING -> lifecycle.moveTo(State.STOPPING);
      case STOPPED -> {
        lifecycle.moveTo(State.STOPPING);
        lifecycle.moveTo(State.STOPPED);
      }
    }
    return lifecycle;
  }
}
