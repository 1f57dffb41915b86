package io.tandem.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class VisibleMarksTest {
  private final List<Long> waits = new ArrayList<>();

  private VisibleMarks.Mark answers(Integer... updated) {
    Deque<Integer> left = new ArrayDeque<>(List.of(updated));
    return () -> left.isEmpty() ? 0 : left.poll();
  }

  @Test
  void aRoundMarkedAtOnceIsNotTriedAgain() {
    assertThat(VisibleMarks.markAll(answers(3), 3, waits::add)).isEqualTo(3);
    assertThat(waits).isEmpty();
  }

  @Test
  void rowsNotVisibleYetAreMarkedOnALaterTry() {
    // 1 of 3 visible at first, none more after 10 ms, the other 2 after 20 ms more
    assertThat(VisibleMarks.markAll(answers(1, 0, 2), 3, waits::add)).isEqualTo(3);
    assertThat(waits).containsExactly(10L, 20L);
  }

  @Test
  void rowsThatNeverMatchEndTheTriesAfterTheLastOne() {
    assertThat(VisibleMarks.markAll(answers(2), 3, waits::add)).isEqualTo(2);
    assertThat(waits).containsExactly(10L, 20L, 40L, 80L, 160L);
  }
}
