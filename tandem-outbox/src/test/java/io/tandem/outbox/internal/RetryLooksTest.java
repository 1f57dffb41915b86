package io.tandem.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryLooksTest {
  private static final long MS = 1_000_000L;
  private final RetryLooks looks = new RetryLooks();
  private final long t0 = System.nanoTime();

  @Test
  void noLookPendingMeansNoDeadline() {
    assertThat(looks.untilNext(t0)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aLookThatFallsDueIsConsumedAndTheNextOneIsKept() {
    looks.add(t0 + 10 * MS);
    looks.add(t0 + 50 * MS);

    assertThat(looks.untilNext(t0)).isBetween(9 * MS, 11 * MS);
    assertThat(looks.untilNext(t0 + 11 * MS)).as("due: read now").isZero();
    // The look at 50 ms survives the one consumed: the relay reads again then even when the read
    // at 10 ms records no failure (the broker came back). A single "earliest" slot lost it.
    assertThat(looks.untilNext(t0 + 11 * MS)).isBetween(38 * MS, 40 * MS);
    assertThat(looks.untilNext(t0 + 51 * MS)).isZero();
    assertThat(looks.untilNext(t0 + 51 * MS)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aLookAddedAfterAnEarlierOneFellDueIsNotHiddenByIt() {
    looks.add(t0 + 5 * MS);
    // Recorded after the first fell due but before the relay asked: both count.
    looks.add(t0 + 30 * MS);

    assertThat(looks.untilNext(t0 + 6 * MS)).isZero();
    assertThat(looks.untilNext(t0 + 6 * MS)).isBetween(23 * MS, 25 * MS);
  }

  @Test
  void aLookIsNeverEarly() {
    looks.add(t0 + 1_500_000L);

    assertThat(looks.untilNext(t0 + 1_400_000L)).isPositive();
    assertThat(looks.untilNext(t0 + 2_000_000L)).isZero();
  }

  @Test
  void atMostMaxLooksAreKeptTheEarliestFirst() {
    for (int i = 1; i <= 2 * RetryLooks.MAX_LOOKS; i++) {
      looks.add(t0 + i * MS);
    }

    assertThat(looks.size()).isEqualTo(RetryLooks.MAX_LOOKS);
    assertThat(looks.untilNext(t0)).as("the look at 1 ms").isBetween(0L, 2 * MS);
  }
}
