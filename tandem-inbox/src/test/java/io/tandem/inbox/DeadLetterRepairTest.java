package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Dead letters and their repairs: advancing over a version skipped at the producer, replay after a
 * handler upgrade, discard, an invalid message kept raw. Subclassed per database.
 */
abstract class DeadLetterRepairTest extends ProcessorFixture {
  @Test
  void aVersionSkippedAtTheProducerIsAdvancedOverOnRecordAndTheNextVersionIsApplied()
      throws Exception {
    String aggregate = "skip-" + consumer;
    Outbox outbox = Outbox.create();
    List<Event> appended = new ArrayList<>();
    try (Connection c = db.dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (long v = 1; v <= 3; v++) {
        Event e = event(aggregate, v);
        outbox.append(c, e);
        appended.add(e);
      }
      c.commit();
    }
    OutboxOperations.create(db.dataSource)
        .skip(appended.get(1).eventId(), "v2 was written with the wrong amount, OPS-7");
    InboxProcessor p = processor().build();
    List<Outcome> outcomes = new ArrayList<>();
    Transport broker =
        new Transport() {
          @Override
          public String name() {
            return "direct";
          }

          @Override
          public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
            List<PublishOutcome> acks = new ArrayList<>();
            for (Event e : events) {
              if (e.aggregateId().equals(aggregate)) {
                outcomes.add(p.process(TestMessage.of(e)));
              }
              acks.add(PublishOutcome.acknowledged(e.eventId()));
            }
            return acks;
          }

          @Override
          public void close() {}
        };
    try (OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource)
            .transport(broker)
            .relayId("relay-" + consumer)
            .build()) {
      while (relay.runOnce() > 0) {
        // until nothing is due
      }
    }
    assertThat(outcomes)
        .as("v2 is never published: v3 waits for it")
        .containsExactly(Outcome.APPLIED, Outcome.PARKED);
    AggregateGap gap = p.gaps(Duration.ZERO, 10).get(0);
    assertThat(gap.explanation())
        .contains(
            "tandem inbox advance --consumer "
                + consumer
                + " --aggregate-type Order --aggregate-id "
                + aggregate
                + " --to-version 2 --reason");

    InboxOperations ops = InboxOperations.create(db.dataSource);
    assertThatThrownBy(() -> ops.advance(consumer, "Order", aggregate, 3, "too far", "alice"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("version 3 of Order/" + aggregate + " is parked")
        .hasMessageContaining("at most version 2");
    assertThatThrownBy(() -> ops.advance(consumer, "Order", aggregate, 2, " ", "alice"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a reason is required");
    InboxAdvance advance =
        ops.advance(consumer, "Order", aggregate, 2, "v2 skipped at the producer, OPS-7", "alice");
    assertThat(p.drainReady()).as("the runner's sweep").isEqualTo(1);

    assertThat(invoices()).containsExactly(aggregate + "#1", aggregate + "#3");
    assertThat(p.gaps(Duration.ZERO, 10)).isEmpty();
    assertThat(ops.advances(consumer, 0, 10))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.id()).isEqualTo(advance.id());
              assertThat(a.aggregateId()).isEqualTo(aggregate);
              assertThat(a.fromVersion()).isEqualTo(1);
              assertThat(a.toVersion()).isEqualTo(2);
              assertThat(a.reason()).isEqualTo("v2 skipped at the producer, OPS-7");
              assertThat(a.advancedBy()).isEqualTo("alice");
              assertThat(a.advancedAt()).isNotNull();
            });
    try (Connection c = db.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT skip_reason, published_at FROM tandem_outbox WHERE aggregate_id = ?"
                    + " AND aggregate_version = 2")) {
      ps.setString(1, aggregate);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("v2 was written with the wrong amount, OPS-7");
        assertThat(rs.getObject(2)).as("never published").isNull();
      }
    }
    assertThat(p.process(TestMessage.of(appended.get(1))))
        .as("the skipped version, should it arrive after all, is dropped: no conflict")
        .isEqualTo(Outcome.DUPLICATE);
    assertThatThrownBy(() -> ops.advance(consumer, "Order", aggregate, 3, "again", "alice"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is at version 3 of Order/" + aggregate + " already");
  }

  @Test
  void advancingPastADeadLetterIsRefusedInFavourOfDiscard() {
    InboxProcessor p =
        processor()
            .on(
                "OrderRefused",
                (c, e) -> {
                  throw new PermanentHandlerException("never");
                })
            .build();
    p.process(TestMessage.of(event("o-1", 1, "OrderRefused", 1)));
    p.process(TestMessage.of(event("o-1", 2)));

    assertThatThrownBy(() -> p.advance("Order", "o-1", 1, "get rid of it", "bob"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dead letter #")
        .hasMessageContaining("discard");
  }

  @Test
  void aNewerSchemaIsDeadLetteredUntilTheHandlerIsUpgradedThenReplayed() throws SQLException {
    InboxProcessor v1 = processor().build();
    TestMessage newer = TestMessage.of(event("o-1", 1, "OrderPlaced", 2));

    assertThat(v1.process(newer)).isEqualTo(Outcome.DEAD_LETTERED);
    assertThat(newer.acks.get()).as("dead-lettered, then acknowledged").isEqualTo(1);
    assertThat(v1.process(TestMessage.of(event("o-1", 2)))).isEqualTo(Outcome.PARKED);
    DeadLetter dead = v1.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.reasonClass()).isEqualTo(DeadLetterReason.UNSUPPORTED_SCHEMA_VERSION);
    assertThat(dead.rawHeaders()).containsEntry("content-type", "application/json");
    assertThat(new String(dead.rawBody(), java.nio.charset.StandardCharsets.UTF_8))
        .contains("\"orderId\":\"o-1\"");

    InboxProcessor v2 =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .on("OrderPlaced", 2, this::invoice)
            .build();
    assertThat(v2.replay(dead.id())).isEqualTo(Outcome.APPLIED);

    assertThat(invoices()).containsExactly("o-1#1", "o-1#2");
    assertThatThrownBy(() -> v2.replay(dead.id()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("REPLAYED");
  }

  @Test
  void discardingADeadLetterLetsTheParkedSuccessorsThrough() throws SQLException {
    InboxProcessor p =
        processor()
            .on(
                "OrderRefused",
                (c, e) -> {
                  throw new PermanentHandlerException("never");
                })
            .build();
    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(TestMessage.of(event("o-1", 2, "OrderRefused", 1))))
        .isEqualTo(Outcome.DEAD_LETTERED);
    assertThat(p.process(TestMessage.of(event("o-1", 3)))).isEqualTo(Outcome.PARKED);
    long id = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0).id();
    assertThat(p.gaps(Duration.ZERO, 10).get(0).blockingDeadLetter()).hasValue(id);

    p.discard(id);

    assertThat(invoices()).containsExactly("o-1#1", "o-1#3");
    assertThat(p.gaps(Duration.ZERO, 10)).isEmpty();
    assertThat(p.deadLetters(DeadLetterStatus.DISCARDED, 0, 10)).hasSize(1);
    assertThatThrownBy(() -> p.discard(id)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> p.replay(424242L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no dead letter #424242");
  }

  @Test
  void anInvalidMessageIsDeadLetteredWithItsRawBody() {
    InboxProcessor p = processor().build();
    TestMessage invalid = TestMessage.invalid("{not json");

    assertThat(p.process(invalid)).isEqualTo(Outcome.DEAD_LETTERED);

    DeadLetter dead = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.reasonClass()).isEqualTo(DeadLetterReason.INVALID_MESSAGE);
    assertThat(dead.reason()).contains("body is not a CloudEvent");
    assertThat(new String(dead.rawBody(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{not json");
    assertThat(dead.eventId()).isNull();
    assertThat(dead.attempts()).isEqualTo(1);
    assertThat(invalid.acks.get()).isEqualTo(1);
  }
}
