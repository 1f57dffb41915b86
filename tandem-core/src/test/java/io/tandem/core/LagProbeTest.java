package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LagProbeTest {

  @Test
  void lastReturnsAtOnceWhileAReadingBlocks() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicLong answer = new AtomicLong(7);
    try (LagProbe probe =
        LagProbe.start(
            "lag-probe-test",
            Duration.ofMillis(20),
            () -> {
              OptionalLong value = OptionalLong.of(answer.get());
              if (answer.get() == 9) {
                release.await(); // a broker that does not answer
              }
              return value;
            })) {
      await().atMost(Duration.ofSeconds(5)).until(() -> probe.last().orElse(-1) == 7);
      answer.set(9);
      long started = System.nanoTime();
      for (int i = 0; i < 20; i++) {
        assertThat(probe.last()).hasValue(7);
      }
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(100);
      release.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> probe.last().orElse(-1) == 9);
    }
  }

  @Test
  void aFailedReadingMakesTheLagUnknownUntilOneSucceeds() {
    AtomicLong answer = new AtomicLong(3);
    try (LagProbe probe =
        LagProbe.start(
            "lag-probe-test",
            Duration.ofMillis(20),
            () -> {
              if (answer.get() < 0) {
                throw new IOException("broker unreachable");
              }
              return OptionalLong.of(answer.get());
            })) {
      await().atMost(Duration.ofSeconds(5)).until(() -> probe.last().orElse(-1) == 3);
      answer.set(-1);
      await().atMost(Duration.ofSeconds(5)).until(() -> probe.last().isEmpty());
      answer.set(5);
      await().atMost(Duration.ofSeconds(5)).until(() -> probe.last().orElse(-1) == 5);
      probe.close();
      assertThat(probe.last()).isEmpty();
    }
  }

  @Test
  void theIntervalMustBePositive() {
    assertThatThrownBy(() -> LagProbe.start("x", Duration.ZERO, OptionalLong::empty))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lagInterval must be a positive duration");
  }
}
