package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The ordering guard and the inbox, one delivery at a time on a real database: order whatever the
 * arrival, duplicates, version conflicts, late joiners, ordering off, unknown types and fields.
 * Subclassed per database.
 */
abstract class InboxProcessorTest extends ProcessorFixture {
  @Test
  void aParkedRowAtOrBelowThePositionIsNoGap() throws Exception {
    InboxProcessor p = processor().build();
    assertThat(p.process(TestMessage.of(event("o-stale", 1)))).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(TestMessage.of(event("o-stale", 3)))).isEqualTo(Outcome.PARKED);
    assertThat(p.gaps(Duration.ZERO, 10)).as("v2 missing: a gap").hasSize(1);
    // v2 and v3 applied by a consumer that died before its drain deleted the parked v3
    try (Connection c = db.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE tandem_inbox_position SET last_version = 3"
                    + " WHERE consumer = ? AND aggregate_id = 'o-stale'")) {
      ps.setString(1, consumer);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    assertThat(p.gaps(Duration.ZERO, 10)).as("the parked v3 is applied already").isEmpty();
  }

  @Test
  void versionsAreAppliedInOrderWhateverTheArrivalOrder() throws SQLException {
    InboxProcessor p = processor().build();
    List<Event> events = new ArrayList<>();
    for (int v = 1; v <= 30; v++) {
      events.add(event("o-1", v));
    }
    for (long seed = 1; seed <= 5; seed++) {
      freshConsumer();
      p = processor().build();
      List<Event> shuffled = new ArrayList<>(events);
      Collections.shuffle(shuffled, new Random(seed));
      for (Event e : shuffled) {
        p.process(TestMessage.of(e));
      }
      List<String> expected = new ArrayList<>();
      for (int v = 1; v <= 30; v++) {
        expected.add("o-1#" + v);
      }
      assertThat(invoices()).as("seed " + seed).isEqualTo(expected);
      assertThat(p.appliedCount()).isEqualTo(30);
    }
  }

  @Test
  void aRedeliveryIsACountedDuplicateAndStillAcknowledged() throws SQLException {
    InboxProcessor p = processor().build();
    TestMessage first = TestMessage.of(event("o-1", 1));
    TestMessage second = TestMessage.of(event("o-1", 2));

    assertThat(p.process(first)).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(second)).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(first)).as("below the position, id seen").isEqualTo(Outcome.DUPLICATE);
    assertThat(p.process(second)).as("at the position, id seen").isEqualTo(Outcome.DUPLICATE);

    assertThat(invoices()).containsExactly("o-1#1", "o-1#2");
    assertThat(p.duplicateCount()).isEqualTo(2);
    assertThat(p.versionConflictCount()).isZero();
    assertThat(first.acks.get() + second.acks.get()).isEqualTo(4);
  }

  @Test
  void anUnseenEventWithAVersionAlreadyTakenIsAVersionConflictNotADuplicate() throws SQLException {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    InboxProcessor p = processor().meterRegistry(meters).build();
    Event applied = event("o-1", 1);
    Event conflicting = event("o-1", 1); // another event id claiming version 1
    TestMessage other = TestMessage.of(conflicting);

    assertThat(p.process(TestMessage.of(applied))).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(TestMessage.of(event("o-1", 2)))).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(other)).isEqualTo(Outcome.DEAD_LETTERED);

    assertThat(invoices()).containsExactly("o-1#1", "o-1#2");
    assertThat(other.acks.get()).as("dead-lettered, then acknowledged").isEqualTo(1);
    assertThat(p.duplicateCount()).isZero();
    assertThat(p.versionConflictCount()).isEqualTo(1);
    assertThat(
            meters
                .get("tandem.consumer.version.conflicts")
                .tag("consumer", consumer)
                .counter()
                .count())
        .isEqualTo(1.0);
    assertThat(
            meters
                .get("tandem.consumer.dead_lettered")
                .tag("consumer", consumer)
                .tag("reason", "VERSION_CONFLICT")
                .counter()
                .count())
        .isEqualTo(1.0);
    DeadLetter dead = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.reasonClass()).isEqualTo(DeadLetterReason.VERSION_CONFLICT);
    assertThat(dead.eventId()).isEqualTo(conflicting.eventId());
    assertThat(dead.reason())
        .contains("version 1 of Order/o-1", "position (2)", conflicting.eventId().toString());
    assertThat(p.process(TestMessage.of(event("o-1", 3))))
        .as("the conflict does not hold the aggregate back")
        .isEqualTo(Outcome.APPLIED);
    assertThat(p.gaps(Duration.ZERO, 10)).isEmpty();
  }

  @Test
  void versionsBeforeALateJoinersStartAreNoConflict() throws SQLException {
    InboxProcessor late = processor().startAtFirstSeenVersion(true).build();
    assertThat(late.process(TestMessage.of(event("o-1", 5)))).isEqualTo(Outcome.APPLIED);
    assertThat(late.process(TestMessage.of(event("o-1", 3))))
        .as("history from before the consumer joined")
        .isEqualTo(Outcome.DUPLICATE);
    assertThat(late.process(TestMessage.of(event("o-1", 5))))
        .as("version 5 again, under another id")
        .isEqualTo(Outcome.DEAD_LETTERED);
    assertThat(late.versionConflictCount()).isEqualTo(1);
    assertThat(invoices()).containsExactly("o-1#5");
  }

  @Test
  void withOrderingOffOnlyTheEventIdDeduplicates() throws SQLException {
    InboxProcessor p = processor().ordered(false).build();
    Event v2 = event("o-1", 2);

    assertThat(p.process(TestMessage.of(v2))).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(TestMessage.of(v2))).isEqualTo(Outcome.DUPLICATE);

    assertThat(invoices()).containsExactly("o-1#2", "o-1#1");
  }

  @Test
  void aConsumerJoiningLateCanStartAtTheFirstVersionItSees() throws SQLException {
    InboxProcessor waiting = processor().build();
    assertThat(waiting.process(TestMessage.of(event("o-1", 7)))).isEqualTo(Outcome.PARKED);

    freshConsumer();
    InboxProcessor late = processor().startAtFirstSeenVersion(true).build();
    assertThat(late.process(TestMessage.of(event("o-1", 7)))).isEqualTo(Outcome.APPLIED);
    assertThat(late.process(TestMessage.of(event("o-1", 9)))).isEqualTo(Outcome.PARKED);
    assertThat(late.process(TestMessage.of(event("o-1", 8)))).isEqualTo(Outcome.APPLIED);
    assertThat(invoices()).containsExactly("o-1#7", "o-1#8", "o-1#9");
  }

  @Test
  void unknownTypesAreSkippedByDefaultAndDeadLetteredOnRequest() throws SQLException {
    InboxProcessor skipping = processor().build();
    assertThat(skipping.process(TestMessage.of(event("o-1", 1, "OrderAudited", 1))))
        .isEqualTo(Outcome.SKIPPED);
    assertThat(skipping.process(TestMessage.of(event("o-1", 2))))
        .as("ordering moved past the skipped version")
        .isEqualTo(Outcome.APPLIED);
    assertThat(skipping.skippedCount()).isEqualTo(1);

    freshConsumer();
    InboxProcessor strict =
        processor().unknownEventTypes(UnsupportedEventPolicy.DEAD_LETTER).build();
    assertThat(strict.process(TestMessage.of(event("o-1", 1, "OrderAudited", 1))))
        .isEqualTo(Outcome.DEAD_LETTERED);
    assertThat(strict.deadLetters(DeadLetterStatus.DEAD, 0, 10))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.reasonClass()).isEqualTo(DeadLetterReason.UNKNOWN_EVENT_TYPE);
              assertThat(d.reason()).contains("OrderAudited");
            });
  }

  /** A payload type of the consumer's own that knows fewer fields than the producer sends. */
  record PlacedV1(String orderId, long v) {}

  @Test
  void unknownPayloadFieldsAreTolerated() throws Exception {
    List<PlacedV1> seen = new ArrayList<>();
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .on("OrderPlaced", (c, e) -> seen.add(e.payloadAs(PlacedV1.class)))
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);

    assertThat(seen).containsExactly(new PlacedV1("o-1", 1));
  }
}
