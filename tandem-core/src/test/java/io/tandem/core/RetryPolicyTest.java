package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  private final RetryPolicy policy =
      RetryPolicy.builder()
          .base(Duration.ofMillis(100))
          .cap(Duration.ofSeconds(5))
          .maxAttempts(5)
          .build();

  @Test
  void ceilingDoublesUpToTheCap() {
    assertThat(policy.ceilingAfter(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(policy.ceilingAfter(2)).isEqualTo(Duration.ofMillis(200));
    assertThat(policy.ceilingAfter(4)).isEqualTo(Duration.ofMillis(800));
    assertThat(policy.ceilingAfter(10)).isEqualTo(Duration.ofSeconds(5));
    assertThat(policy.ceilingAfter(1_000)).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void delaysAreFullJitterBetweenZeroAndTheCeiling() {
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 5_000; i++) {
      long d = policy.delayAfter(4).toMillis();
      min = Math.min(min, d);
      max = Math.max(max, d);
    }
    assertThat(min).isBetween(0L, 80L);
    assertThat(max).isBetween(720L, 800L);
  }

  @Test
  void attemptsAreCapped() {
    assertThat(policy.mayRetry(4)).isTrue();
    assertThat(policy.mayRetry(5)).isFalse();
  }

  @Test
  void invalidSettingsAreRefusedWithTheParameterName() {
    assertThatThrownBy(() -> RetryPolicy.builder().base(Duration.ZERO).build())
        .hasMessageContaining("base must be a positive duration");
    assertThatThrownBy(
            () ->
                RetryPolicy.builder()
                    .base(Duration.ofSeconds(2))
                    .cap(Duration.ofSeconds(1))
                    .build())
        .hasMessageContaining("cap must be at least base");
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0).build())
        .hasMessageContaining("maxAttempts must be at least 1, was 0");
  }
}
