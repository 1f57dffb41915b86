package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.InboundMessage;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The batched path's isolation and settling: a failing handler rolled back alone behind its
 * savepoint, a crash between the commit and the acks absorbed, no ack before the commit, the batch
 * callback. Subclassed per database.
 */
abstract class BatchIsolationTest extends BatchFixture {
  @Test
  void aFailingHandlerIsRolledBackAloneAndTheRestOfTheBatchCommits() throws SQLException {
    AtomicInteger c1Calls = new AtomicInteger();
    Event c1 = event("c", 1);
    Event poison = event("p", 1);
    InboxProcessor p =
        processor(
                (conn, e) -> {
                  invoice(conn, e); // written before the failure: the savepoint must undo it
                  if (e.eventId().equals(c1.eventId()) && c1Calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("c1 fails once");
                  }
                  if (e.eventId().equals(poison.eventId())) {
                    throw new IllegalStateException("poison fails always");
                  }
                })
            .build();
    List<TestMessage> batch =
        messages(event("a", 1), c1, event("c", 2), poison, event("p", 2), event("b", 1));
    List<Outcome> outcomes = p.process(batch);

    assertThat(outcomes)
        .containsExactly(
            Outcome.APPLIED, // a1
            Outcome.APPLIED, // c1: failed in the batch, then applied alone on its retry
            Outcome.APPLIED, // c2: after c1, alone
            Outcome.DEAD_LETTERED, // poison: retried alone, then dead-lettered
            Outcome.PARKED, // p2: behind the dead letter
            Outcome.APPLIED); // b1
    assertThat(invoices()).containsExactlyInAnyOrder("a#1", "b#1", "c#1", "c#2");
    assertThat(invoicesOf("c")).containsExactly("c#1", "c#2");
    assertThat(c1Calls.get()).isEqualTo(2);
    DeadLetter dead = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.eventId()).isEqualTo(poison.eventId());
    assertThat(dead.attempts()).as("the batch's attempt counts").isEqualTo(3);
    assertThat(batch).allSatisfy(m -> assertThat(m.acks.get()).isEqualTo(1));
  }

  @Test
  void aCrashBetweenTheCommitAndTheAcksIsAbsorbedByTheRedelivery() throws SQLException {
    AtomicBoolean crash = new AtomicBoolean(true);
    FaultInjector killAfterCommit =
        point -> {
          if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT) && crash.getAndSet(false)) {
            throw new FaultInjector.SimulatedCrash(point);
          }
        };
    List<Event> events = List.of(event("a", 1), event("a", 2), event("b", 1));
    InboxProcessor dying = processor(this::invoice).faultInjector(killAfterCommit).build();
    List<TestMessage> first = messages(events.toArray(Event[]::new));
    assertThatThrownBy(() -> dying.process(first)).isInstanceOf(FaultInjector.SimulatedCrash.class);
    assertThat(first).allSatisfy(m -> assertThat(m.acks.get()).isZero());
    assertThat(invoices()).as("committed before the crash").hasSize(3);

    InboxProcessor restarted = processor(this::invoice).build();
    List<TestMessage> redelivered = messages(events.toArray(Event[]::new));
    assertThat(restarted.process(redelivered))
        .containsExactly(Outcome.DUPLICATE, Outcome.DUPLICATE, Outcome.DUPLICATE);
    assertThat(invoices()).containsExactlyInAnyOrder("a#1", "a#2", "b#1");
    assertThat(redelivered).allSatisfy(m -> assertThat(m.acks.get()).isEqualTo(1));
  }

  @Test
  void noMessageIsAcknowledgedBeforeTheBatchCommitted() throws SQLException {
    InboxProcessor p = processor(this::invoice).build();
    List<String> seenAtAck = new CopyOnWriteArrayList<>();
    List<InboundMessage> batch = new ArrayList<>();
    for (Event e : List.of(event("a", 1), event("b", 1), event("a", 2), event("c", 1))) {
      batch.add(new CheckingMessage(e, seenAtAck));
    }
    p.process(batch);
    assertThat(seenAtAck)
        .as("each ack saw, from another connection, every effect of the batch committed")
        .containsExactly("4", "4", "4", "4");
  }

  @Test
  void aBatchHandlerGetsTheBatchInOneCallAndAFailureIsIsolated() throws SQLException {
    List<Integer> calls = new CopyOnWriteArrayList<>();
    Event poison = event("p", 1);
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(2).build())
            .onBatch(
                "OrderPlaced",
                (conn, events) -> {
                  calls.add(events.size());
                  for (Event e : events) {
                    invoice(conn, e);
                    if (e.eventId().equals(poison.eventId())) {
                      throw new IllegalStateException("poison");
                    }
                  }
                })
            .build();
    assertThat(p.process(messages(event("a", 1), event("a", 2), event("b", 1))))
        .containsOnly(Outcome.APPLIED);
    assertThat(calls).containsExactly(3);

    calls.clear();
    assertThat(p.process(messages(event("c", 1), poison, event("d", 1))))
        .containsExactly(Outcome.APPLIED, Outcome.DEAD_LETTERED, Outcome.APPLIED);
    assertThat(calls)
        .as("the batch call, then one call per event, then the poison's retry alone")
        .containsExactly(3, 1, 1, 1, 1);
    assertThat(invoices()).containsExactlyInAnyOrder("a#1", "a#2", "b#1", "c#1", "d#1");
  }

  @Test
  void aHandlerThatSwallowsItsOwnSqlErrorDoesNotTakeTheOthersWithIt() throws SQLException {
    Event careless = event("x", 1);
    InboxProcessor p =
        processor(
                (conn, e) -> {
                  if (e.eventId().equals(careless.eventId())) {
                    try (java.sql.Statement s = conn.createStatement()) {
                      s.execute("SELECT * FROM no_such_table");
                    } catch (SQLException ignored) {
                      // on PostgreSQL the transaction is aborted now: the next statement fails
                    }
                  }
                  invoice(conn, e);
                })
            .build();
    boolean postgres;
    try (java.sql.Connection c = db.dataSource.getConnection()) {
      postgres = c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
    }
    List<Outcome> outcomes =
        p.process(messages(event("a", 1), careless, event("b", 1), event("b", 2)));

    // PostgreSQL blames the careless handler (its own insert fails, 25P02) and only it; MariaDB
    // aborts no transaction, so its invoice is written.
    assertThat(outcomes)
        .containsExactly(
            Outcome.APPLIED,
            postgres ? Outcome.DEAD_LETTERED : Outcome.APPLIED,
            Outcome.APPLIED,
            Outcome.APPLIED);
    assertThat(invoices())
        .containsExactlyInAnyOrderElementsOf(
            postgres ? List.of("a#1", "b#1", "b#2") : List.of("a#1", "x#1", "b#1", "b#2"));
  }
}
