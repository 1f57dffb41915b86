package io.tandem.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeldAggregatesTest {
  private final Aggregate order = new Aggregate("order", "o-1");
  private final HeldAggregates held = new HeldAggregates();

  @Test
  void theStreamPublishesAnAggregateThatIsNotHeld() {
    assertThat(held.leaveBehind(order)).isFalse();
    assertThat(held.generation(order)).isEqualTo(-1);
  }

  @Test
  void aHeldAggregateIsLeftBehindUntilReleased() {
    held.hold(order);
    assertThat(held.leaveBehind(order)).isTrue();
    long generation = held.generation(order);
    assertThat(held.releaseIf(order, generation)).isTrue();
    assertThat(held.leaveBehind(order)).isFalse();
    assertThat(held.size()).isZero();
  }

  @Test
  void anEventLeftBehindAfterTheDrainsReadKeepsTheAggregateHeld() {
    held.hold(order);
    long readAt = held.generation(order); // the drain reads: nothing pending
    assertThat(held.leaveBehind(order)).isTrue(); // meanwhile the stream leaves one more row
    assertThat(held.releaseIf(order, readAt)).as("that row must not be orphaned").isFalse();
    assertThat(held.snapshot()).containsExactly(order);
  }
}
