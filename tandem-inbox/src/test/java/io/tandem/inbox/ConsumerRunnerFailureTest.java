package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.MessageSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A runner's lanes facing what nobody planned for — an Error from a handler, an acknowledgement
 * that fails, a failure that escapes the processor itself — and a consumer killed between applying
 * a version and draining its parked successor. On PostgreSQL, with a source in memory that hands
 * over exactly the messages given.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsumerRunnerFailureTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private InboxDatabase db;
  private String consumer;
  private final List<ConsumerRunner> runners = new ArrayList<>();

  @BeforeAll
  void open() throws SQLException {
    db = InboxDatabase.postgres("runner_failure");
  }

  @AfterAll
  void close() {
    db.close();
  }

  @BeforeEach
  void freshConsumer() {
    consumer = "lane-" + UUID.randomUUID();
  }

  @AfterEach
  void stopRunners() {
    runners.forEach(ConsumerRunner::close);
    runners.clear();
  }

  private Event event(String aggregate, long version, String type) {
    return Event.builder()
        .aggregate("Order", aggregate, version)
        .eventType(type)
        .payload("{\"v\":" + version + "}")
        .build();
  }

  private InboxProcessor.Builder processor() {
    return InboxProcessor.builder()
        .dataSource(db.dataSource)
        .consumer(consumer)
        .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build())
        .on("OrderPlaced", this::invoice)
        .on(
            "OrderRecursed",
            (c, e) -> {
              throw new StackOverflowError("the handler recursed without end");
            });
  }

  private ConsumerRunner run(MessageSource source, InboxProcessor processor) {
    return run(source, processor, ConsumerRunner.DEFAULT_MAX_BATCH);
  }

  private ConsumerRunner run(MessageSource source, InboxProcessor processor, int maxBatch) {
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(source)
            .processor(processor)
            .concurrency(1) // every aggregate on the one lane: losing it would stop them all
            .maxBatch(maxBatch)
            .sweepInterval(Duration.ofMillis(200))
            .build();
    runners.add(runner);
    runner.start();
    return runner;
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

  @Test
  void aHandlerThrowingAnErrorIsRetriedThenDeadLetteredAndTheLaneGoesOn() throws Exception {
    TestMessage recursing = TestMessage.of(event("o-1", 1, "OrderRecursed"));
    TestMessage next = TestMessage.of(event("o-1", 2, "OrderPlaced"));
    TestMessage other = TestMessage.of(event("o-2", 1, "OrderPlaced"));
    InboxProcessor processor = processor().build();
    ConsumerRunner runner = run(new ListSource(List.of(recursing, next, other)), processor);

    // In one batch the other aggregate commits and is acknowledged first; the failing message's
    // retries and its parked successor settle after it: wait for all three.
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> other.acks.get() == 1 && recursing.acks.get() == 1 && next.acks.get() == 1);

    assertThat(recursing.acks.get()).as("dead-lettered, then acknowledged").isEqualTo(1);
    assertThat(processor.failedAttempts()).as("counted, each attempt").isEqualTo(3);
    assertThat(processor.deadLetters(DeadLetterStatus.DEAD, 0, 10))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.reasonClass()).isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
              assertThat(d.attempts()).isEqualTo(3);
              assertThat(d.reason()).contains("StackOverflowError", "recursed without end");
            });
    assertThat(next.acks.get()).as("parked behind the dead letter, acknowledged").isEqualTo(1);
    assertThat(invoices()).containsExactly("o-2#1");
    assertThat(runner.isRunning()).isTrue();
  }

  @Test
  void anAcknowledgementThatFailsIsRetriedByTheOwnerWithoutApplyingAgain() throws Exception {
    BrittleMessage brittle = new BrittleMessage(event("o-1", 1, "OrderPlaced"), 1);
    TestMessage after = TestMessage.of(event("o-2", 1, "OrderPlaced"));
    InboxProcessor processor = processor().build();
    ConsumerRunner runner = run(new ListSource(List.of(brittle, after)), processor);

    Awaitility.await().atMost(WAIT).until(() -> after.acks.get() == 1 && brittle.acks.get() == 1);

    assertThat(brittle.acks.get()).as("acknowledged on the runner's second try").isEqualTo(1);
    assertThat(runner.laneFailures()).isEqualTo(1);
    assertThat(invoices()).containsExactly("o-1#1", "o-2#1");
    assertThat(processor.duplicateCount()).as("the settling is retried, not the applying").isZero();
    assertThat(processor.deadLetters(DeadLetterStatus.DEAD, 0, 10)).isEmpty();
    assertThat(runner.isRunning()).isTrue();
  }

  @Test
  void anAcknowledgementThatKeepsFailingIsLeftForRedeliveryNeverDeadLettered() throws Exception {
    BrittleMessage hopeless = new BrittleMessage(event("o-1", 1, "OrderPlaced"), 1_000);
    TestMessage after = TestMessage.of(event("o-2", 1, "OrderPlaced"));
    InboxProcessor processor = processor().build();
    ConsumerRunner runner = run(new ListSource(List.of(hopeless, after)), processor);

    Awaitility.await()
        .atMost(WAIT)
        .until(() -> after.acks.get() == 1 && runner.laneFailures() == 3);

    assertThat(hopeless.acks.get()).as("the broker keeps it and delivers it again").isZero();
    assertThat(processor.deadLetters(DeadLetterStatus.DEAD, 0, 10))
        .as("its effect committed: nothing to dead-letter")
        .isEmpty();
    assertThat(invoices()).as("applied once").containsExactly("o-1#1", "o-2#1");
    assertThat(runner.isRunning()).isTrue();
  }

  /**
   * A failure that escapes the processor after the batch committed (here the fault point throws an
   * ordinary exception once): the lane applies the batch again — duplicates by then — and only then
   * settles it.
   */
  @Test
  void aFailureEscapingTheProcessorIsRetriedByTheLaneAndSettledOnlyAfterIt() throws Exception {
    AtomicInteger failures = new AtomicInteger(1);
    InboxProcessor processor =
        processor()
            .faultInjector(
                point -> {
                  if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)
                      && failures.getAndDecrement() > 0) {
                    throw new IllegalStateException("a bug after the commit");
                  }
                })
            .build();
    TestMessage first = TestMessage.of(event("o-1", 1, "OrderPlaced"));
    TestMessage second = TestMessage.of(event("o-2", 1, "OrderPlaced"));
    ConsumerRunner runner = run(new ListSource(List.of(first, second)), processor);

    Awaitility.await().atMost(WAIT).until(() -> first.acks.get() == 1 && second.acks.get() == 1);

    assertThat(runner.laneFailures()).isEqualTo(1);
    assertThat(invoices()).as("applied once").containsExactlyInAnyOrder("o-1#1", "o-2#1");
    assertThat(processor.deadLetters(DeadLetterStatus.DEAD, 0, 10)).isEmpty();
    assertThat(runner.isRunning()).isTrue();
  }

  /** Every attempt fails outside the handlers: left unacknowledged, never dead-lettered. */
  @Test
  void aFailureEscapingTheProcessorEveryTimeLeavesTheBatchUnacknowledged() throws Exception {
    InboxProcessor processor =
        processor()
            .faultInjector(
                point -> {
                  if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)) {
                    throw new IllegalStateException("a bug after the commit");
                  }
                })
            .build();
    TestMessage first = TestMessage.of(event("o-1", 1, "OrderPlaced"));
    ConsumerRunner runner = run(new ListSource(List.of(first)), processor);

    Awaitility.await().atMost(WAIT).until(() -> runner.laneFailures() == 3);

    assertThat(first.acks.get()).as("not settled: the broker delivers it again").isZero();
    assertThat(processor.deadLetters(DeadLetterStatus.DEAD, 0, 10)).isEmpty();
    assertThat(invoices()).containsExactly("o-1#1");
    assertThat(runner.isRunning()).isTrue();
  }

  @Test
  void aConsumerKilledBetweenApplyingAVersionAndItsParkedSuccessorLeavesItToTheNextRunner()
      throws Exception {
    Event v1 = event("o-1", 1, "OrderPlaced");
    Event v2 = event("o-1", 2, "OrderPlaced");
    AtomicInteger commits = new AtomicInteger();
    InboxProcessor dying =
        processor()
            .faultInjector(
                point -> {
                  // the first commit parks v2; the second applies v1: killed right after it
                  if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)
                      && commits.incrementAndGet() == 2) {
                    throw new FaultInjector.SimulatedCrash(point);
                  }
                })
            .build();
    TestMessage v1Message = TestMessage.of(v1);
    // one message per transaction: in one batch v1 and v2 would be applied together, in order
    ConsumerRunner first = run(new ListSource(List.of(TestMessage.of(v2), v1Message)), dying, 1);

    Awaitility.await().atMost(WAIT).until(() -> !first.isRunning());
    assertThat(invoices()).as("v1 committed, v2 still parked").containsExactly("o-1#1");
    assertThat(v1Message.acks.get()).as("killed before its acknowledgement").isZero();

    // The broker redelivers v1: a duplicate, which drains nothing. The sweep applies v2.
    InboxProcessor successor = processor().build();
    TestMessage redelivered = TestMessage.of(v1);
    run(new ListSource(List.of(redelivered)), successor);

    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(invoices()).containsExactly("o-1#1", "o-1#2");
              // the sweep may apply v2 before the lane settles the redelivered v1
              assertThat(redelivered.acks.get()).isEqualTo(1);
            });
    assertThat(successor.gaps(Duration.ZERO, 10)).isEmpty();
  }
}
