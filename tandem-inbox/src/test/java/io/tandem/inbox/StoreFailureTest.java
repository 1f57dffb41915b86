package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.RetryPolicy;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A batch that fails outside its handlers — the commit, or one of the consumer's own statements —
 * is neither acknowledged nor dead-lettered: the handlers did nothing wrong, so the messages are
 * retried (without using up their attempts) until the database takes them, and acknowledged only
 * then. Subclassed per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StoreFailureTest {
  private InboxDatabase db;
  private FlakyDataSource flaky;
  private String consumer;

  /** The waits asked for, none slept: the test controls time. */
  private final List<Duration> waited = new java.util.concurrent.CopyOnWriteArrayList<>();

  private final io.tandem.inbox.internal.Sleeper waits =
      (delay, stopping) -> {
        waited.add(delay);
        return !stopping.getAsBoolean();
      };

  abstract InboxDatabase openDatabase(String prefix) throws SQLException;

  @BeforeAll
  void open() throws SQLException {
    db = openDatabase("store_failure");
    flaky = new FlakyDataSource(db.dataSource);
  }

  @AfterAll
  void close() {
    db.close();
  }

  @BeforeEach
  void freshConsumer() {
    consumer = "s-" + UUID.randomUUID();
    flaky.failCommits.set(0);
    flaky.failStatements.set(0);
    waited.clear();
  }

  private static Event event(String aggregate, long version) {
    return Event.builder()
        .aggregate("Order", aggregate, version)
        .eventType("OrderPlaced")
        .payload("{\"v\":" + version + "}")
        .build();
  }

  private InboxProcessor processor() {
    return InboxProcessor.builder()
        .dataSource(flaky)
        .dialect(Dialect.of(db.dataSource))
        .consumer(consumer)
        .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(2).build())
        .on("OrderPlaced", this::invoice)
        .sleeper(waits)
        .build();
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

  private void assertAppliedOnceAndNeverDeadLettered(
      InboxProcessor p, List<TestMessage> batch, List<Outcome> outcomes) throws SQLException {
    assertThat(outcomes).containsOnly(Outcome.APPLIED);
    assertThat(p.deadLetters(DeadLetterStatus.DEAD, 0, 10))
        .as("the handlers never failed: nothing to dead-letter")
        .isEmpty();
    assertThat(invoices()).containsExactlyInAnyOrder("a#1", "a#2", "b#1");
    assertThat(batch).allSatisfy(m -> assertThat(m.acks.get()).isEqualTo(1));
    assertThat(p.failedAttempts()).as("no handler attempt used up").isZero();
    assertThat(p.storeFailures())
        .as("each failure waited for, none slept")
        .isPositive()
        .isEqualTo(waited.size());
  }

  @Test
  void aBatchWhoseCommitFailsIsRetriedNotDeadLettered() throws SQLException {
    InboxProcessor p = processor();
    List<TestMessage> batch =
        List.of(
            TestMessage.of(event("a", 1)),
            TestMessage.of(event("a", 2)),
            TestMessage.of(event("b", 1)));
    flaky.failCommits.set(4); // more than the batch's and the messages' attempts together

    List<Outcome> outcomes = p.process(batch);

    assertAppliedOnceAndNeverDeadLettered(p, batch, outcomes);
  }

  @Test
  void aBatchWhoseStoreStatementFailsIsRetriedNotDeadLettered() throws SQLException {
    InboxProcessor p = processor();
    List<TestMessage> batch =
        List.of(
            TestMessage.of(event("a", 1)),
            TestMessage.of(event("a", 2)),
            TestMessage.of(event("b", 1)));
    flaky.failStatements.set(4);

    List<Outcome> outcomes = p.process(batch);

    assertAppliedOnceAndNeverDeadLettered(p, batch, outcomes);
  }

  @Test
  void aMessageWhoseCommitFailsIsNotAcknowledgedWhileItFails() throws SQLException {
    InboxProcessor p = processor();
    TestMessage one = TestMessage.of(event("a", 1));
    flaky.failCommits.set(3);

    assertThat(p.process(one)).isEqualTo(Outcome.APPLIED);

    assertThat(p.deadLetters(DeadLetterStatus.DEAD, 0, 10)).isEmpty();
    assertThat(invoices()).containsExactly("a#1");
    assertThat(one.acks.get()).isEqualTo(1);
  }
}
