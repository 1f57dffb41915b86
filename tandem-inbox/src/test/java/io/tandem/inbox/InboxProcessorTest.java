package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Dialect;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.PrometheusScrape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The processor's rules, one delivery at a time on a real database: ordering guard, duplicates,
 * policies for unsupported events, dead letters and their replay or discard, acknowledgement only
 * after the commit, retention. Subclassed per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class InboxProcessorTest {
  private InboxDatabase db;
  private String consumer;

  abstract InboxDatabase openDatabase(String prefix) throws SQLException;

  @BeforeAll
  void open() throws SQLException {
    db = openDatabase("processor_test");
  }

  @AfterAll
  void close() {
    db.close();
  }

  @BeforeEach
  void freshConsumer() {
    consumer = "c-" + UUID.randomUUID();
  }

  private static Event event(String aggregate, long version, String type, int schema) {
    return Event.builder()
        .aggregate("Order", aggregate, version)
        .eventType(type)
        .schemaVersion(schema)
        .payload("{\"orderId\":\"" + aggregate + "\",\"v\":" + version + ",\"addedLater\":true}")
        .build();
  }

  private static Event event(String aggregate, long version) {
    return event(aggregate, version, "OrderPlaced", 1);
  }

  private InboxProcessor.Builder processor() {
    return InboxProcessor.builder()
        .dataSource(db.dataSource)
        .consumer(consumer)
        .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build())
        .on("OrderPlaced", this::invoice);
  }

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
  void anErrorFromAHandlerIsRetriedThenDeadLetteredAndTheStreamFlowsOn() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        processor()
            .on(
                "OrderBroken",
                (c, e) -> {
                  calls.incrementAndGet();
                  throw new NoClassDefFoundError("com/example/Missing");
                })
            .build();
    TestMessage broken = TestMessage.of(event("o-1", 1, "OrderBroken", 1));

    assertThat(p.process(broken)).isEqualTo(Outcome.DEAD_LETTERED);

    assertThat(calls.get()).as("the retry policy's 3 attempts").isEqualTo(3);
    assertThat(p.failedAttempts()).isEqualTo(3);
    assertThat(broken.acks.get()).isEqualTo(1);
    DeadLetter dead = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.reasonClass()).isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
    assertThat(dead.reason()).contains("NoClassDefFoundError", "com/example/Missing");
    assertThat(p.process(TestMessage.of(event("o-2", 1)))).isEqualTo(Outcome.APPLIED);
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

  @Test
  void aFailingHandlerIsRetriedThenDeadLetteredAndNothingOfItCommits() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(4).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  calls.incrementAndGet();
                  invoice(c, e); // written, then rolled back with the failure
                  throw new IllegalStateException("downstream rule failed");
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.DEAD_LETTERED);

    assertThat(calls.get()).isEqualTo(4);
    assertThat(p.failedAttempts()).isEqualTo(4);
    assertThat(invoices()).isEmpty();
    DeadLetter dead = p.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
    assertThat(dead.reasonClass()).isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
    assertThat(dead.attempts()).isEqualTo(4);
    assertThat(dead.reason()).contains("downstream rule failed");
  }

  @Test
  void anUnreachableDatabaseDoesNotUseUpAttempts() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(2).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  if (calls.incrementAndGet() <= 3) {
                    throw new SQLTransientConnectionException("connection reset", "08006");
                  }
                  invoice(c, e);
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);

    assertThat(calls.get()).isEqualTo(4);
    assertThat(p.failedAttempts()).as("connection failures are not the message's").isZero();
    assertThat(invoices()).containsExactly("o-1#1");
  }

  @Test
  void deadlocksAreRetriedWithoutUsingUpAttempts() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(2).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  if (calls.incrementAndGet() <= 5) {
                    throw new java.sql.SQLTransactionRollbackException(
                        "Deadlock found", "40001", 1213);
                  }
                  invoice(c, e);
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);

    assertThat(calls.get()).isEqualTo(6);
    assertThat(p.failedAttempts()).isZero();
    assertThat(invoices()).containsExactly("o-1#1");
  }

  @Test
  void theMessageIsAcknowledgedOnlyAfterTheCommit() throws SQLException {
    InboxProcessor p =
        processor()
            .faultInjector(
                point -> {
                  if (point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)) {
                    throw new FaultInjector.SimulatedCrash(point);
                  }
                })
            .build();
    TestMessage message = TestMessage.of(event("o-1", 1));

    assertThatThrownBy(() -> p.process(message)).isInstanceOf(FaultInjector.SimulatedCrash.class);

    assertThat(invoices()).as("committed").containsExactly("o-1#1");
    assertThat(message.acks.get()).as("not acknowledged").isZero();
    InboxProcessor restarted = processor().build();
    assertThat(restarted.process(message)).isEqualTo(Outcome.DUPLICATE);
    assertThat(message.acks.get()).isEqualTo(1);
    assertThat(invoices()).containsExactly("o-1#1");
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

  @Test
  void retentionPurgesOldRecordsInBatchesAndRefusesAWindowShorterThanReplay() throws SQLException {
    InboxProcessor p = processor().ordered(false).build();
    for (int i = 1; i <= 25; i++) {
      p.process(TestMessage.of(event("r-" + i, 1)));
    }
    try (Connection c = db.dataSource.getConnection();
        Statement s = c.createStatement()) {
      boolean postgres = Dialect.of(c).name().equals("postgresql");
      s.executeUpdate(
          postgres
              ? "UPDATE tandem_inbox SET processed_at = processed_at - interval '20 days'"
              : "UPDATE tandem_inbox SET processed_at = processed_at - INTERVAL 20 DAY");
    }
    InboxRetention retention =
        InboxRetention.builder().dataSource(db.dataSource).batchSize(10).build();

    long eligible = retention.dryRun();
    assertThat(eligible).isGreaterThanOrEqualTo(25);
    assertThat(retention.dryRun()).as("a dry run deletes nothing").isEqualTo(eligible);
    assertThat(retention.run()).isEqualTo(eligible);
    assertThat(retention.dryRun()).isZero();
    assertThatThrownBy(
            () ->
                InboxRetention.builder()
                    .dataSource(db.dataSource)
                    .retention(Duration.ofDays(3))
                    .maxReplayWindow(Duration.ofDays(7))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shorter than the broker's maximum replay window");
  }

  @Test
  void aHandlerAppendsToItsOwnOutboxInTheSameTransaction() throws SQLException {
    Outbox outbox = Outbox.create();
    AtomicInteger failures = new AtomicInteger(1);
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  invoice(c, e);
                  outbox.append(
                      c,
                      Event.builder()
                          .aggregate("Invoice", e.aggregateId() + "@" + consumer, 1)
                          .eventType("InvoiceCreated")
                          .payload("{\"order\":\"" + e.aggregateId() + "\"}")
                          .build());
                  if (failures.getAndDecrement() > 0) {
                    throw new IllegalStateException("fails once after writing both rows");
                  }
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);

    assertThat(invoices()).containsExactly("o-1#1");
    try (Connection c = db.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM tandem_outbox WHERE aggregate_id = ?")) {
      ps.setString(1, "o-1@" + consumer);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getLong(1)).as("the failed attempt's reply rolled back").isEqualTo(1);
      }
    }
  }

  /**
   * The consumer signals of docs/operations.md, driven for real and read back by their Prometheus
   * names from the text {@code /metrics} serves. Also catches two meters whose Prometheus names
   * collide (a counter {@code x.total} and a gauge {@code x}): the registry drops one of them.
   */
  @Test
  void consumerSignalsReadBackFromThePrometheusScrapeByName() {
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    InboxProcessor p =
        processor()
            .on(
                "OrderBroken",
                (c, e) -> {
                  throw new IllegalStateException("this handler always fails");
                })
            .gapAlertAfter(Duration.ofMillis(200))
            .meterRegistry(meters)
            .build();
    TestMessage first = TestMessage.of(event("o-1", 1));
    assertThat(p.process(first)).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(TestMessage.of(event("o-3", 1, "NobodyTakesThis", 1))))
        .isEqualTo(Outcome.SKIPPED);
    assertThat(p.process(TestMessage.of(event("o-4", 1, "OrderBroken", 1))))
        .isEqualTo(Outcome.DEAD_LETTERED); // 3 attempts
    assertThat(p.process(first)).isEqualTo(Outcome.DUPLICATE); // a dedup hit
    assertThat(p.process(TestMessage.of(event("o-1", 3)))).isEqualTo(Outcome.PARKED); // v2 missing
    assertThat(p.process(TestMessage.of(event("o-2", 1, "OrderPlaced", 2))))
        .isEqualTo(Outcome.DEAD_LETTERED); // a newer schema
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(p.checkGaps()).hasSize(1));

    PrometheusScrape scrape = PrometheusScrape.parse(meters.scrape());
    assertThat(scrape.value("tandem_consumer_applied_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_duplicates_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_parkings_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_parked", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_gaps_overdue", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_gap_oldest_seconds", "consumer", consumer))
        .isGreaterThanOrEqualTo(0);
    assertThat(
            scrape.value(
                "tandem_consumer_dead_lettered_total",
                "consumer",
                consumer,
                "reason",
                "UNSUPPORTED_SCHEMA_VERSION"))
        .isEqualTo(1);
    assertThat(
            scrape.value(
                "tandem_consumer_dead_lettered_total",
                "consumer",
                consumer,
                "reason",
                "RETRIES_EXHAUSTED"))
        .isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_dead_letters", "consumer", consumer)).isEqualTo(2);
    assertThat(scrape.value("tandem_consumer_skipped_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_failed_attempts_total", "consumer", consumer))
        .isEqualTo(3);
  }

  @Test
  void aPredecessorMissingPastTheAlertTimeIsReportedAndMeasured() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    InboxProcessor p =
        processor().gapAlertAfter(Duration.ofMillis(200)).meterRegistry(meters).build();
    p.process(TestMessage.of(event("o-1", 1)));
    p.process(TestMessage.of(event("o-1", 3)));
    p.process(TestMessage.of(event("o-1", 4)));

    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(p.checkGaps()).hasSize(1));

    AggregateGap gap = p.checkGaps().get(0);
    assertThat(gap.waitingFor()).isEqualTo(2);
    assertThat(gap.lastApplied()).hasValue(1);
    assertThat(gap.parked()).isEqualTo(2);
    assertThat(gap.explanation()).contains("has not been delivered yet");
    assertThat(meters.get("tandem.consumer.gaps.overdue").tag("consumer", consumer).gauge().value())
        .isEqualTo(1.0);
    assertThat(meters.get("tandem.consumer.parked").tag("consumer", consumer).gauge().value())
        .isEqualTo(2.0);
  }

  @Test
  void theBuilderNamesWhatIsWrong() {
    assertThatThrownBy(() -> InboxProcessor.builder().consumer("c").on("A", (c, e) -> {}).build())
        .hasMessageContaining("dataSource");
    assertThatThrownBy(
            () -> InboxProcessor.builder().dataSource(db.dataSource).consumer("bad name").build())
        .hasMessageContaining("consumer name 'bad name' is invalid");
    assertThatThrownBy(
            () -> InboxProcessor.builder().dataSource(db.dataSource).consumer("c").build())
        .hasMessageContaining("no handler");
    assertThatThrownBy(() -> InboxProcessor.builder().on("A", (c, e) -> {}).on("A", (c, e) -> {}))
        .hasMessageContaining("has a handler already");
  }
}
