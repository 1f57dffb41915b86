package io.tandem.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.jdbc.InsertNotifications;
import io.tandem.outbox.ManualRelayClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wake-up policy on a clock the test moves: no sleeping, every wait computed exactly. */
class WakeUpPolicyTest {
  private static final Duration POLL = Duration.ofSeconds(30);
  private static final Duration LINGER = Duration.ofMillis(5);

  private final ManualRelayClock clock = ManualRelayClock.frozen();
  private final RetryLooks retryLooks = new RetryLooks(clock.nanoTime());
  private final WakeUpPolicy policy = new WakeUpPolicy(POLL, LINGER, retryLooks, clock);
  private final Listener listener = new Listener();
  private final long farCoordination = clock.nanoTime() + Duration.ofHours(1).toNanos();

  @Test
  void afterEightBusyCyclesTheRelayStopsListeningAndLingers() {
    policy.listenWith(listener);
    for (int i = 1; i < WakeUpPolicy.BUSY_CYCLES; i++) {
      assertThat(policy.pauseAfter(10, 10, farCoordination)).as("cycle %d", i).isEqualTo(POLL);
    }
    assertThat(policy.pauseAfter(10, 10, farCoordination)).isEqualTo(LINGER);
    assertThat(listener.calls).containsOnly(false);
    assertThat(policy.pauseAfter(10, 10, farCoordination)).isEqualTo(LINGER);
  }

  @Test
  void theFirstEmptyReadListensAgainAndLooksOnceMoreOneLateLookLater() {
    policy.listenWith(listener);
    for (int i = 0; i < WakeUpPolicy.BUSY_CYCLES; i++) {
      policy.pauseAfter(10, 10, farCoordination);
    }
    assertThat(policy.pauseAfter(0, 0, farCoordination)).isEqualTo(WakeUpPolicy.LATE_LOOK);
    assertThat(listener.calls).endsWith(true);
    clock.advance(Duration.ofMillis(40));
    assertThat(policy.pauseAfter(0, 0, farCoordination)).isEqualTo(Duration.ofMillis(60));
    clock.advance(Duration.ofMillis(60));
    // that read was the late look; from now on the relay waits for a notification or its poll
    assertThat(policy.pauseAfter(0, 0, farCoordination)).isEqualTo(POLL);
  }

  @Test
  void cyclesWhoseBatchWasNotAcknowledgedNeverCountAsBusy() {
    policy.listenWith(listener);
    for (int i = 0; i < 3 * WakeUpPolicy.BUSY_CYCLES; i++) {
      assertThat(policy.pauseAfter(10, 0, farCoordination)).isEqualTo(POLL);
    }
    assertThat(listener.calls).doesNotContain(false);
  }

  @Test
  void aRelayWithoutListenerNeverLingers() {
    for (int i = 0; i < 2 * WakeUpPolicy.BUSY_CYCLES; i++) {
      assertThat(policy.pauseAfter(10, 10, farCoordination)).isEqualTo(POLL);
    }
  }

  @Test
  void anIdleRelayLooksWhenARetryFallsDueOrTheNextCoordinationComes() {
    retryLooks.add(clock.nanoTime() + Duration.ofMillis(200).toNanos());
    assertThat(policy.pauseAfter(0, 0, farCoordination)).isEqualTo(Duration.ofMillis(200));
    clock.advance(Duration.ofMillis(200));
    assertThat(policy.pauseAfter(0, 0, farCoordination)).as("due: read now").isZero();
    long coordination = clock.nanoTime() + Duration.ofSeconds(5).toNanos();
    assertThat(policy.pauseAfter(0, 0, coordination)).isEqualTo(Duration.ofSeconds(5));
    assertThat(policy.pauseAfter(0, 0, clock.nanoTime() - 1)).as("overdue").isZero();
  }

  private static final class Listener implements InsertNotifications {
    final List<Boolean> calls = new ArrayList<>();

    @Override
    public void setListening(boolean listening) {
      calls.add(listening);
    }

    @Override
    public boolean isListening() {
      return calls.isEmpty() || calls.get(calls.size() - 1);
    }

    @Override
    public void close() {}
  }
}
