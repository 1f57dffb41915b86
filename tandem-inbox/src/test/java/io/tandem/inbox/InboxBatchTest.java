package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.InboundMessage;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The batched path's guarantees ({@link InboxProcessor#process(List)}), each on a real database: no
 * duplicate effect for a copy in the batch or an id applied before, per-aggregate order with
 * several versions and gaps in one batch, a failing handler isolated behind its savepoint, a crash
 * between the commit and the acks absorbed, no ack before the commit, the batch callback.
 * Subclassed per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class InboxBatchTest {
  private InboxDatabase db;
  private String consumer;

  abstract InboxDatabase openDatabase(String prefix) throws SQLException;

  @BeforeAll
  void open() throws SQLException {
    db = openDatabase("batch_test");
  }

  @AfterAll
  void close() {
    db.close();
  }

  @BeforeEach
  void freshConsumer() {
    consumer = "b-" + UUID.randomUUID();
  }

  private static Event event(String aggregate, long version) {
    return Event.builder()
        .aggregate("Order", aggregate, version)
        .eventType("OrderPlaced")
        .payload("{\"orderId\":\"" + aggregate + "\",\"v\":" + version + "}")
        .build();
  }

  private InboxProcessor.Builder processor(InboxWork<SQLException> handler) {
    return InboxProcessor.builder()
        .dataSource(db.dataSource)
        .consumer(consumer)
        .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build())
        .on("OrderPlaced", handler);
  }

  private void invoice(Connection c, Event e) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO invoices (order_id, event_id) VALUES (?, ?)")) {
      ps.setString(1, e.aggregateId() + "#" + e.aggregateVersion() + "@" + consumer);
      ps.setObject(2, e.eventId());
      ps.executeUpdate();
    }
  }

  private List<String> invoices() throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = db.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT order_id FROM invoices WHERE order_id LIKE ? ORDER BY id")) {
      ps.setString(1, "%@" + consumer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(rs.getString(1).replace("@" + consumer, ""));
        }
      }
    }
    return rows;
  }

  private List<String> invoicesOf(String aggregate) throws SQLException {
    return invoices().stream().filter(r -> r.startsWith(aggregate + "#")).toList();
  }

  private static List<TestMessage> messages(Event... events) {
    List<TestMessage> messages = new ArrayList<>();
    for (Event e : events) {
      messages.add(TestMessage.of(e));
    }
    return messages;
  }

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

  /** A message whose ack counts, from another connection, the consumer's committed effects. */
  private final class CheckingMessage implements InboundMessage {
    private final Event event;
    private final List<String> seen;

    CheckingMessage(Event event, List<String> seen) {
      this.event = event;
      this.seen = seen;
    }

    @Override
    public String key() {
      return event.aggregateId();
    }

    @Override
    public String origin() {
      return "test " + event.eventId();
    }

    @Override
    public Map<String, String> rawHeaders() {
      return Map.of();
    }

    @Override
    public byte[] rawBody() {
      return event.payload().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Event decode() {
      return event;
    }

    @Override
    public void acknowledge() {
      try {
        seen.add(Integer.toString(invoices().size()));
      } catch (SQLException e) {
        seen.add("failed: " + e);
      }
    }
  }
}
