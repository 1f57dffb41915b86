package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The batched path's ordering and deduplication ({@link InboxProcessor#process(List)}) on a real
 * database: no duplicate effect for a copy in the batch or an id applied before, with or without
 * ordering, per-aggregate order with several versions and gaps in one batch. Subclassed per
 * database.
 */
abstract class InboxBatchTest extends BatchFixture {
  @Test
  void aCopyInTheBatchAndAnIdAppliedBeforeHaveOneEffect() throws SQLException {
    InboxProcessor p = processor(this::invoice).build();
    Event a1 = event("a", 1);
    Event a2 = event("a", 2);
    Event b1 = event("b", 1);
    assertThat(p.process(TestMessage.of(a1))).isEqualTo(Outcome.APPLIED);

    List<TestMessage> batch =
        messages(a1, a2, b1, a2, b1, event("c", 1)); // a1 applied before; a2, b1 twice
    List<Outcome> outcomes = p.process(batch);

    assertThat(outcomes)
        .containsExactly(
            Outcome.DUPLICATE,
            Outcome.APPLIED,
            Outcome.APPLIED,
            Outcome.DUPLICATE,
            Outcome.DUPLICATE,
            Outcome.APPLIED);
    assertThat(invoices()).containsExactlyInAnyOrder("a#1", "a#2", "b#1", "c#1");
    assertThat(batch).allSatisfy(m -> assertThat(m.acks.get()).isEqualTo(1));
    assertThat(p.appliedCount()).isEqualTo(4);
    assertThat(p.duplicateCount()).isEqualTo(3);
  }

  @Test
  void withoutOrderingToo() throws SQLException {
    InboxProcessor p = processor(this::invoice).ordered(false).build();
    Event a1 = event("a", 1);
    Event b7 = event("b", 7);
    assertThat(p.process(TestMessage.of(a1))).isEqualTo(Outcome.APPLIED);

    List<TestMessage> batch = messages(b7, a1, b7, event("a", 2));
    assertThat(p.process(batch))
        .containsExactly(Outcome.APPLIED, Outcome.DUPLICATE, Outcome.DUPLICATE, Outcome.APPLIED);
    assertThat(invoices()).containsExactlyInAnyOrder("a#1", "a#2", "b#7");
    assertThat(batch).allSatisfy(m -> assertThat(m.acks.get()).isEqualTo(1));
  }

  @Test
  void eachAggregateIsAppliedInVersionOrderWithGapsParkedInTheBatch() throws SQLException {
    InboxProcessor p = processor(this::invoice).build();
    List<TestMessage> batch =
        messages(
            event("a", 3),
            event("b", 2),
            event("a", 1),
            event("a", 6),
            event("b", 1),
            event("a", 2),
            event("c", 2));
    List<Outcome> outcomes = p.process(batch);

    assertThat(outcomes)
        .containsExactly(
            Outcome.APPLIED,
            Outcome.APPLIED,
            Outcome.APPLIED,
            Outcome.PARKED,
            Outcome.APPLIED,
            Outcome.APPLIED,
            Outcome.PARKED);
    assertThat(invoicesOf("a")).containsExactly("a#1", "a#2", "a#3");
    assertThat(invoicesOf("b")).containsExactly("b#1", "b#2");
    assertThat(invoicesOf("c")).isEmpty();

    // the gaps fill in a later batch: the parked successors follow, in order
    assertThat(p.process(messages(event("c", 1), event("a", 4), event("a", 5))))
        .containsExactly(Outcome.APPLIED, Outcome.APPLIED, Outcome.APPLIED);
    assertThat(invoicesOf("a")).containsExactly("a#1", "a#2", "a#3", "a#4", "a#5", "a#6");
    assertThat(invoicesOf("c")).containsExactly("c#1", "c#2");
    assertThat(p.gaps(Duration.ZERO, 10)).isEmpty();
    assertThat(batch).allSatisfy(m -> assertThat(m.acks.get()).isEqualTo(1));
  }
}
