package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.TandemException;
import io.tandem.jdbc.Transactions;
import io.tandem.testkit.PrometheusScrape;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/** The relay contract, run per database by {@link PostgresOutboxRelayTest} and others. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxRelayTest {
  private OutboxDatabase db;
  private final Outbox outbox = Outbox.create();
  private RecordingTransport transport;
  private final List<OutboxRelay> relays = new ArrayList<>();

  /** Creates this suite's database on the server under test. */
  abstract OutboxDatabase openDatabase(String prefix);

  /** Whether the database announces committed inserts (PostgreSQL's LISTEN/NOTIFY). */
  boolean announcesInserts() {
    return false;
  }

  @BeforeAll
  void setUp() {
    db = openDatabase("outbox_relay");
  }

  @AfterAll
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  @AfterEach
  void stopRelays() {
    relays.forEach(OutboxRelay::close);
    relays.clear();
    assertThat(transport.violations)
        .as("publish calls with two versions of an aggregate")
        .isEmpty();
  }

  @BeforeEach
  void clean() throws SQLException {
    transport = new RecordingTransport();
    db.clearOutbox();
    db.execute("UPDATE tandem_relay_partition SET owner = NULL, lease_until = NULL");
    db.execute("DELETE FROM tandem_relay_instance");
  }

  private List<Event> append(int aggregates, int versionsEach) {
    return append("o-", aggregates, versionsEach);
  }

  private List<Event> append(String prefix, int aggregates, int versionsEach) {
    return append(prefix, aggregates, versionsEach, 1);
  }

  /** Appends versions {@code first .. first + versionsEach - 1} of each aggregate. */
  private List<Event> append(String prefix, int aggregates, int versionsEach, int first) {
    List<Event> events = new ArrayList<>();
    for (int v = first; v < first + versionsEach; v++) {
      for (int a = 0; a < aggregates; a++) {
        events.add(
            Event.builder()
                .aggregate("Order", prefix + a, v)
                .eventType("OrderChanged")
                .payload("{\"n\":" + v + "}")
                .build());
      }
    }
    Transactions.inTransaction(
        db.dataSource,
        c -> {
          outbox.appendAll(c, events);
          return null;
        });
    return events;
  }

  private OutboxRelay.Builder relay(String id) {
    return OutboxRelay.builder()
        .dataSource(db.dataSource)
        .transport(transport)
        .relayId(id)
        .batchSize(50)
        .pollInterval(Duration.ofMillis(20))
        .heartbeatInterval(Duration.ofMillis(300))
        .publishTimeout(Duration.ofSeconds(1))
        .leaseDuration(Duration.ofSeconds(3));
  }

  private OutboxRelay started(OutboxRelay.Builder b) {
    OutboxRelay r = b.build();
    relays.add(r);
    r.start();
    return r;
  }

  private long unpublished() {
    return db.count("SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL");
  }

  private static void drain(OutboxRelay relay) {
    while (relay.runOnce() > 0) {
      // until nothing is due
    }
  }

  /**
   * Same envelope; the payload is equal as JSON (PostgreSQL's jsonb normalises whitespace and key
   * order, MariaDB keeps the text as appended).
   */
  static void assertSameEvent(Event actual, Event expected) {
    assertThat(actual.toBuilder().payload("{}").build())
        .isEqualTo(expected.toBuilder().payload("{}").build());
    try {
      ObjectMapper json = new ObjectMapper();
      assertThat(json.readTree(actual.payload())).isEqualTo(json.readTree(expected.payload()));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Asserts that every aggregate's acknowledged versions never go backwards past a gap. */
  private void assertAckedInAggregateOrder() {
    Map<String, Long> last = new HashMap<>();
    for (Event e : transport.acknowledged) {
      long previous = last.getOrDefault(e.aggregateId(), 0L);
      assertThat(e.aggregateVersion())
          .as("%s acknowledged after version %d of its aggregate", e, previous)
          .isLessThanOrEqualTo(previous + 1);
      last.put(e.aggregateId(), Math.max(previous, e.aggregateVersion()));
    }
  }

  @Test
  void publishesEveryCommittedEventAndMarksItAfterTheAck() {
    List<Event> events = append(10, 3);
    OutboxRelay relay = relay("r1").build();
    drain(relay);
    assertThat(transport.acknowledged)
        .extracting(Event::eventId)
        .containsExactlyInAnyOrderElementsOf(events.stream().map(Event::eventId).toList());
    assertSameEvent(
        transport.acknowledged.stream()
            .filter(e -> e.eventId().equals(events.get(0).eventId()))
            .findFirst()
            .orElseThrow(),
        events.get(0));
    assertAckedInAggregateOrder();
    assertThat(unpublished()).isZero();
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE published_by = 'r1' AND attempts = 1"))
        .isEqualTo(30);
    assertThat(relay.publishedCount()).isEqualTo(30);
    assertThat(relay.status().ownedPartitions()).hasSize(64);
  }

  @Test
  void operationsTellWhichRelayPublishedHowManyAndHowLongEachWaited() throws SQLException {
    append(5, 2);
    OutboxOperations ops = OutboxOperations.create(db.dataSource);
    assertThat(ops.pending()).isEqualTo(10);
    drain(relay("r-ops-a").batchSize(4).build());
    append("later-", 3, 1);
    assertThat(ops.pending()).isEqualTo(3);
    db.execute("UPDATE tandem_relay_partition SET owner = NULL, lease_until = NULL"); // a's gone
    db.execute("DELETE FROM tandem_relay_instance");
    drain(relay("r-ops-b").build());
    assertThat(ops.pending()).isZero();
    assertThat(ops.publishedByRelay())
        .containsExactly(Map.entry("r-ops-a", 10L), Map.entry("r-ops-b", 3L));
    List<Duration> newest = ops.publishDelays(2);
    assertThat(newest).hasSize(2).allSatisfy(d -> assertThat(d.isNegative()).as("%s", d).isFalse());
    assertThat(ops.publishDelays(100)).hasSize(13);
    assertThatThrownBy(() -> ops.publishDelays(0)).hasMessage("newest must be at least 1, was 0");
  }

  @Test
  void aRelayJoiningTakesAFairShareOfPartitionsAndBothPublishWithoutDuplicates() {
    OutboxRelay a = startedOwningAll(relay("r-a"));
    OutboxRelay b = started(relay("r-b"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                a.status().ownedPartitions().size() == 32
                    && b.status().ownedPartitions().size() == 32);
    assertThat(a.status().ownedPartitions())
        .doesNotContainAnyElementsOf(b.status().ownedPartitions());

    List<Event> events = append(300, 4);
    await().atMost(Duration.ofSeconds(30)).until(() -> unpublished() == 0);
    Set<UUID> seen = new HashSet<>();
    for (Event e : transport.acknowledged) {
      assertThat(seen.add(e.eventId())).as("published twice: %s", e).isTrue();
    }
    assertThat(seen).hasSize(events.size());
    assertThat(a.publishedCount()).isPositive();
    assertThat(b.publishedCount()).isPositive();
    assertAckedInAggregateOrder();
  }

  @Test
  void manyRelaysRebalancingPublishEverythingOnceInOrderWithoutLockFailures() {
    // Lock conflicts between relays (deadlocks, lock waits that time out) would surface as
    // failed coordination or publishing cycles, logged as errors; there must be none.
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger relayLogger = (Logger) LoggerFactory.getLogger(OutboxRelay.class);
    relayLogger.addAppender(log);
    try {
      List<OutboxRelay> cluster = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        cluster.add(
            started(
                relay("r-cluster-" + i)
                    .pollInterval(Duration.ofMillis(5))
                    .heartbeatInterval(Duration.ofMillis(100))
                    .leaseDuration(Duration.ofMillis(1500))));
      }
      List<Event> events = new ArrayList<>();
      for (int round = 0; round < 10; round++) {
        events.addAll(append("c-", 200, 1, round + 1));
        if (round == 5) {
          cluster.get(0).close(); // its partitions move to the others mid-stream
        }
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> unpublished() == 0);

      Set<UUID> seen = new HashSet<>();
      for (Event e : transport.acknowledged) {
        assertThat(seen.add(e.eventId())).as("published twice: %s", e).isTrue();
      }
      assertThat(seen).hasSize(events.size()).hasSize(2000);
      assertAckedInAggregateOrder();
      assertThat(cluster.stream().filter(r -> r.publishedCount() > 0)).hasSizeGreaterThan(1);
      assertThat(log.list)
          .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
          .extracting(ILoggingEvent::getFormattedMessage)
          .isEmpty();
    } finally {
      relayLogger.detachAppender(log);
    }
  }

  @Test
  void aClosedRelayGivesItsPartitionsBackAtOnce() {
    OutboxRelay a = startedOwningAll(relay("r-leaving"));
    a.close();
    OutboxStatus status = OutboxOperations.create(db.dataSource).status();
    assertThat(status.unowned()).hasSize(64);
    assertThat(status.instances()).isEmpty();
    OutboxRelay b = relay("r-next").build();
    append(5, 1);
    drain(b);
    assertThat(unpublished()).isZero();
  }

  @Test
  void aRelayThatDiesAfterTheAckLeavesItsEventsToTheNextOwnerWithTheSameIds() {
    List<Event> events = append(5, 1);
    FaultInjector dieAfterAck =
        point -> {
          if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
            throw new FaultInjector.SimulatedCrash(point);
          }
        };
    OutboxRelay doomed = started(relay("doomed").faultInjector(dieAfterAck));
    await().atMost(Duration.ofSeconds(10)).until(doomed::hasCrashed);
    assertThat(transport.acknowledged).hasSize(5);
    assertThat(unpublished()).isEqualTo(5);

    OutboxRelay successor = relay("successor").build();
    assertThat(successor.runOnce()).as("the dead relay's leases still hold").isZero();
    OutboxStatus status = OutboxOperations.create(db.dataSource).status();
    assertThat(status.partitions()).allSatisfy(p -> assertThat(p.owner()).isEqualTo("doomed"));
    await().atMost(Duration.ofSeconds(10)).until(() -> successor.runOnce() > 0);

    assertThat(unpublished()).isZero();
    assertThat(transport.acknowledged).hasSize(10);
    for (Event e : events) {
      assertThat(transport.attempts.get(e.eventId())).isEqualTo(2);
    }
    List<Event> second = transport.acknowledged.subList(5, 10);
    for (Event e : events) {
      assertSameEvent(
          second.stream().filter(x -> x.eventId().equals(e.eventId())).findFirst().orElseThrow(),
          e);
    }
  }

  @Test
  void aRelayWhosePartitionMovedOnCannotMarkAnything() {
    append(4, 1);
    FaultInjector stealAfterAck =
        point -> {
          if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
            try {
              db.execute(
                  "UPDATE tandem_relay_partition SET owner = 'usurper', epoch = epoch + 1,"
                      + " lease_until = "
                      + db.fromNow(Duration.ofMinutes(1)));
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
          }
        };
    OutboxRelay fenced = relay("fenced").faultInjector(stealAfterAck).build();
    assertThat(fenced.runOnce()).isEqualTo(4);
    assertThat(transport.acknowledged).hasSize(4);
    assertThat(fenced.publishedCount()).isZero();
    assertThat(unpublished()).isEqualTo(4);
  }

  /**
   * A relay paused in the middle of publishing, past its lease (a GC pause, a stalled network: its
   * transport holds the call), while a successor takes its partitions over: no version of an
   * aggregate leaves before its predecessor was acknowledged, by either relay, and the paused
   * relay, once it goes on, sends nothing more and marks nothing.
   */
  @Test
  void aRelayPausedPastItsLeaseWhilePublishingSendsNoVersionAheadAndMarksNothing()
      throws Exception {
    List<Event> events = append("lease-", 3, 3);
    List<String> journal = new java.util.concurrent.CopyOnWriteArrayList<>();
    RecordingTransport pausedTransport = new RecordingTransport("paused", journal);
    RecordingTransport successorTransport = new RecordingTransport("successor", journal);
    pausedTransport.holdCalls();
    OutboxRelay paused = shortLease("paused", pausedTransport);
    java.util.concurrent.CompletableFuture<Integer> pausedCycle =
        java.util.concurrent.CompletableFuture.supplyAsync(paused::runOnce);
    try {
      assertThat(pausedTransport.publishing.await(10, TimeUnit.SECONDS)).isTrue();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  db.count(
                          "SELECT count(*) FROM tandem_relay_partition WHERE owner = 'paused'"
                              + " AND lease_until > "
                              + db.now())
                      == 0);

      // It takes every partition once the paused relay's heartbeat is older than its lease.
      OutboxRelay successor = shortLease("successor", successorTransport);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                drain(successor);
                return unpublished() == 0;
              });
    } finally {
      pausedTransport.release();
    }
    assertThat(pausedCycle.get(10, TimeUnit.SECONDS)).isEqualTo(9);

    assertThat(pausedTransport.calls)
        .as("the paused relay sent the first round only: its lease ran out meanwhile")
        .singleElement()
        .satisfies(call -> assertThat(call).allMatch(e -> e.aggregateVersion() == 1));
    assertThat(paused.publishedCount()).as("the paused relay marks nothing").isZero();
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE published_by = 'successor'"))
        .isEqualTo(events.size());
    for (int i = 0; i < journal.size(); i++) {
      String line = journal.get(i);
      if (!line.startsWith("send ")) {
        continue;
      }
      String sent = line.substring(line.indexOf(' ', 5) + 1); // "Order/lease-0 v2"
      long version = Long.parseLong(sent.substring(sent.lastIndexOf('v') + 1));
      if (version > 1) {
        String predecessor = sent.substring(0, sent.lastIndexOf('v') + 1) + (version - 1);
        assertThat(journal.subList(0, i))
            .as("%s sent after an acknowledgement of %s", line, predecessor)
            .anyMatch(l -> l.startsWith("ack ") && l.endsWith(" " + predecessor));
      }
    }
  }

  /** A relay on {@code transport} whose lease lasts 800 ms. */
  private OutboxRelay shortLease(String relayId, RecordingTransport transport) {
    return relay(relayId)
        .transport(transport)
        .publishTimeout(Duration.ofMillis(300))
        .heartbeatInterval(Duration.ofMillis(200))
        .leaseDuration(Duration.ofMillis(800))
        .build();
  }

  /**
   * A row that does not hold a valid event (here a number the JSON reader refuses, which no
   * database checks) is quarantined only under its partition's epoch: a relay whose partitions
   * moved on quarantines nothing and marks nothing; their next owner quarantines it and publishes
   * the rest.
   */
  @Test
  void aRowThatIsNotAnEventIsQuarantinedOnlyByTheOwnerOfItsPartition() throws SQLException {
    OutboxRelay stale =
        relay("stale")
            .heartbeatInterval(Duration.ofSeconds(2))
            .leaseDuration(Duration.ofSeconds(6))
            .build();
    assertThat(stale.runOnce()).isZero(); // takes the partitions, reads nothing
    db.execute(
        "UPDATE tandem_relay_partition SET owner = 'usurper', epoch = epoch + 1, lease_until = "
            + db.fromNow(Duration.ofMinutes(1)));
    append("before-", 2, 1);
    db.execute(
        "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id, aggregate_version,"
            + " event_type, payload, occurred_at) VALUES ("
            + db.randomUuid()
            + ", 'Order', 'poison', 1, 'OrderChanged', '{\"total\": "
            + "9".repeat(1001)
            + "}', "
            + db.now()
            + ")");
    append("poison", 1, 1, 2); // Order/poison0 v2: another aggregate
    append("after-", 2, 1);

    assertThat(stale.runOnce()).as("its leases are still valid in its own eyes").isEqualTo(5);
    assertThat(stale.publishedCount()).isZero();
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE quarantined_at IS NOT NULL"))
        .as("the stale relay quarantined nothing")
        .isZero();

    db.execute("UPDATE tandem_relay_partition SET owner = NULL, lease_until = NULL");
    db.execute("DELETE FROM tandem_relay_instance WHERE relay_id = 'stale'");
    transport = new RecordingTransport();
    OutboxRelay heir = relay("heir").build();
    drain(heir);
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE aggregate_id = 'poison'"
                    + " AND quarantined_at IS NOT NULL AND error_class = 'INVALID_EVENT'"
                    + " AND last_error LIKE 'PAYLOAD_JSON: invalid event: payload is not valid"
                    + " JSON: %Number%'"))
        .isEqualTo(1);
    assertThat(transport.acknowledged)
        .extracting(Event::aggregateId)
        .containsExactlyInAnyOrder("before-0", "before-1", "poison0", "after-0", "after-1");
    assertThat(unpublished()).isEqualTo(1);
  }

  /**
   * A relay whose cycles keep failing (here its outbox table is gone) keeps its partitions but says
   * it is not healthy — status, metric, one ERROR — and recovers with the first cycle that works.
   */
  @Test
  void aRelayWhoseCyclesKeepFailingReportsItselfNotHealthyUntilOneWorks() throws SQLException {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger healthLogger =
        (Logger) LoggerFactory.getLogger(io.tandem.outbox.internal.RelayHealth.class);
    healthLogger.addAppender(log);
    db.execute("ALTER TABLE tandem_outbox RENAME TO tandem_outbox_away");
    try {
      OutboxRelay relay =
          startedOwningAll(relay("r-failing").unhealthyAfterFailedCycles(2).meterRegistry(meters));
      await().atMost(Duration.ofSeconds(15)).until(() -> relay.status().failing());
      RelayStatus status = relay.status();
      assertThat(status.healthy(Duration.ofSeconds(3))).isFalse();
      assertThat(status.failedCyclesInARow()).isGreaterThanOrEqualTo(2);
      assertThat(status.lastError()).startsWith("JdbcException: ").doesNotContain("\n");
      assertThat(status.ownedPartitions()).hasSize(64);
      assertThat(meters.get("tandem.relay.healthy").gauge().value()).isZero();
      assertThat(meters.get("tandem.relay.cycles.failing").gauge().value())
          .isGreaterThanOrEqualTo(2);
      assertThat(log.list)
          .filteredOn(e -> e.getLevel() == Level.ERROR)
          .singleElement()
          .satisfies(
              e -> assertThat(e.getFormattedMessage()).contains("relay r-failing is not healthy"));

      db.execute("ALTER TABLE tandem_outbox_away RENAME TO tandem_outbox");
      append("back-", 2, 1);
      await().atMost(Duration.ofSeconds(15)).until(() -> unpublished() == 0);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> relay.status().healthy(Duration.ofSeconds(3)));
      assertThat(relay.status().failedCyclesInARow()).isZero();
      assertThat(meters.get("tandem.relay.healthy").gauge().value()).isEqualTo(1);
    } finally {
      healthLogger.detachAppender(log);
      try {
        db.execute("ALTER TABLE tandem_outbox_away RENAME TO tandem_outbox");
      } catch (SQLException renamedBackAlready) {
        // the test got that far
      }
    }
  }

  @Test
  void retriableFailuresBackOffAndRecordTheError() {
    append(1, 1);
    transport.failWith = e -> ErrorClass.BROKER_UNAVAILABLE;
    OutboxRelay relay =
        relay("r-retry")
            .retryPolicy(
                RetryPolicy.builder()
                    .base(Duration.ofSeconds(30))
                    .cap(Duration.ofSeconds(60))
                    .build())
            .build();
    assertThat(relay.runOnce()).isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE attempts = 1"
                    + " AND error_class = 'BROKER_UNAVAILABLE' AND last_error LIKE 'injected%'"
                    + " AND next_attempt_at > "
                    + db.ago(Duration.ofSeconds(1))
                    + " AND published_at IS NULL AND quarantined_at IS NULL"))
        .isEqualTo(1);
  }

  @Test
  void aFailedVersionHoldsBackTheLaterVersionsOfItsAggregateOnly() {
    List<Event> events = append(2, 5); // o-0 and o-1, versions 1..5
    transport.failWith =
        e -> e.aggregateId().equals("o-0") && e.aggregateVersion() == 3 ? ErrorClass.TIMEOUT : null;
    OutboxRelay relay =
        relay("r-rounds")
            .retryPolicy(
                RetryPolicy.builder()
                    .base(Duration.ofMinutes(1))
                    .cap(Duration.ofMinutes(1))
                    .build())
            .build();
    drain(relay);
    assertThat(transport.acknowledged)
        .filteredOn(e -> e.aggregateId().equals("o-0"))
        .extracting(Event::aggregateVersion)
        .containsExactly(1L, 2L);
    assertThat(transport.acknowledged)
        .filteredOn(e -> e.aggregateId().equals("o-1"))
        .extracting(Event::aggregateVersion)
        .containsExactly(1L, 2L, 3L, 4L, 5L);
    UUID v4 =
        events.stream()
            .filter(e -> e.aggregateId().equals("o-0") && e.aggregateVersion() == 4)
            .findFirst()
            .orElseThrow()
            .eventId();
    assertThat(transport.attempts).as("version 4 was never sent").doesNotContainKey(v4);
    assertThat(unpublished()).isEqualTo(3);
  }

  @Test
  void aRetriedEventIsPublishedWithItsOriginalIdOnceTheBrokerRecovers() {
    List<Event> events = append(3, 2);
    AtomicBoolean brokerDown = new AtomicBoolean(true);
    transport.failWith = e -> brokerDown.get() ? ErrorClass.TIMEOUT : null;
    OutboxRelay relay = started(relay("r-recover").retryPolicy(retryingForever()));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                transport.attempts.size() == 3
                    && transport.attempts.values().stream().allMatch(n -> n >= 3));
    brokerDown.set(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> unpublished() == 0);
    assertThat(transport.acknowledged)
        .extracting(Event::eventId)
        .containsExactlyInAnyOrderElementsOf(events.stream().map(Event::eventId).toList());
    assertAckedInAggregateOrder();
    assertThat(relay.failedCount()).isGreaterThanOrEqualTo(9);
  }

  @Test
  void aPermanentFailureQuarantinesTheEventAndHoldsOnlyItsAggregateUntilReplay() {
    List<Event> events = append(3, 3); // o-0, o-1, o-2 with versions 1..3
    Event poison = events.get(0); // o-0 v1
    AtomicBoolean rejecting = new AtomicBoolean(true);
    transport.failWith =
        e ->
            rejecting.get() && e.eventId().equals(poison.eventId())
                ? ErrorClass.RECORD_TOO_LARGE
                : null;
    OutboxRelay relay = relay("r-perm").build();
    drain(relay);

    OutboxOperations ops = OutboxOperations.create(db.dataSource);
    List<QuarantinedEvent> quarantined = ops.listQuarantined(10);
    assertThat(quarantined).hasSize(1);
    assertThat(quarantined.get(0).eventId()).isEqualTo(poison.eventId());
    assertThat(quarantined.get(0).errorClass()).isEqualTo("RECORD_TOO_LARGE");
    assertThat(transport.acknowledged).noneMatch(e -> e.aggregateId().equals("o-0"));
    assertThat(transport.acknowledged).hasSize(6); // o-1 and o-2 flowed
    assertThat(ops.status().quarantined()).isEqualTo(1);
    assertThat(relay.runOnce()).as("quarantine holds the aggregate").isZero();

    rejecting.set(false);
    ops.replay(poison.eventId());
    drain(relay);
    assertThat(transport.acknowledged)
        .filteredOn(e -> e.aggregateId().equals("o-0"))
        .extracting(Event::eventId)
        .containsExactly(events.get(0).eventId(), events.get(3).eventId(), events.get(6).eventId());
    assertThat(unpublished()).isZero();
    assertThatThrownBy(() -> ops.replay(poison.eventId()))
        .isInstanceOf(TandemException.class)
        .hasMessageContaining("is not quarantined");
  }

  /**
   * Every relay and outbox signal of docs/operations.md, driven for real and read back by its
   * Prometheus name from the text {@code /metrics} serves.
   */
  @Test
  void everyRelaySignalReadsBackFromThePrometheusScrapeByName() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    List<Event> events = append(4, 2); // o-0..o-3, versions 1 and 2
    Event kept = events.get(0); // o-0 v1: quarantined and left there
    Event dropped = events.get(2); // o-2 v1: quarantined, then skipped
    Event flaky = events.get(1); // o-1 v1: fails once, retriable
    AtomicBoolean flakyFailed = new AtomicBoolean();
    transport.failWith =
        e -> {
          if (e.eventId().equals(kept.eventId()) || e.eventId().equals(dropped.eventId())) {
            return ErrorClass.RECORD_TOO_LARGE;
          }
          return e.eventId().equals(flaky.eventId()) && flakyFailed.compareAndSet(false, true)
              ? ErrorClass.BROKER_UNAVAILABLE
              : null;
        };
    Duration lease = Duration.ofMillis(1500);
    Duration heartbeat = Duration.ofMillis(100);
    ManualRelayClock clock = ManualRelayClock.running(); // the relay's leases age faster when told
    OutboxRelay relay =
        relay("r-metrics")
            .meterRegistry(registry)
            .clock(clock)
            .heartbeatInterval(heartbeat)
            .leaseDuration(lease)
            .retryPolicy(retrying(Duration.ofMillis(10), 5))
            .build();
    OutboxOperations ops = OutboxOperations.create(db.dataSource);
    await().atMost(Duration.ofSeconds(10)).until(() -> drained(relay, 2));
    ops.skip(dropped.eventId(), "superseded, metrics test");
    await().atMost(Duration.ofSeconds(10)).until(() -> drained(relay, 1));
    // renewals: coordinate again while the leases hold
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              clock.advance(heartbeat);
              relay.runOnce();
              return scrape(registry)
                      .value("tandem_relay_lease_renewals_total", "relay", "r-metrics")
                  >= 64;
            });
    // expiries: the relay's holding runs out (80 % of the lease) on its clock, then it coordinates
    clock.advance(lease);
    relay.runOnce();
    try (OutboxMetrics gauges = OutboxMetrics.register(registry, ops, Duration.ofMinutes(1))) {
      PrometheusScrape scrape = scrape(registry);
      int acked = transport.acknowledged.size();
      int handed = transport.calls.stream().mapToInt(List::size).sum();
      assertThat(acked).isEqualTo(5); // o-1 v1, v2; o-2 v2; o-3 v1, v2
      assertThat(scrape.value("tandem_relay_published_total", "transport", "recording"))
          .isEqualTo(acked);
      assertThat(scrape.value("tandem_relay_attempts_total", "transport", "recording"))
          .isEqualTo(handed)
          .isEqualTo(acked + 3);
      assertThat(scrape.value("tandem_relay_failures_total", "error_class", "RECORD_TOO_LARGE"))
          .isEqualTo(2);
      assertThat(scrape.value("tandem_relay_failures_total", "error_class", "BROKER_UNAVAILABLE"))
          .isEqualTo(1);
      assertThat(scrape.value("tandem_relay_quarantined_total", "error_class", "RECORD_TOO_LARGE"))
          .isEqualTo(2);
      assertThat(scrape.has("tandem_relay_quarantined_total", "error_class", "BROKER_UNAVAILABLE"))
          .as("a retried failure is not a quarantine")
          .isFalse();
      assertThat(
              scrape.value("tandem_relay_publish_latency_seconds_count", "transport", "recording"))
          .isEqualTo(acked);
      assertThat(scrape.value("tandem_relay_publish_latency_seconds_sum", "transport", "recording"))
          .isPositive();
      assertThat(scrape.value("tandem_relay_batch_seconds_count", "transport", "recording"))
          .as("batches read, published and recorded")
          .isPositive();
      assertThat(scrape.value("tandem_relay_batch_seconds_sum", "transport", "recording"))
          .isPositive();
      assertThat(scrape.has("tandem_relay_publish_latency_seconds_bucket", "le", "+Inf"))
          .as("a histogram, so that percentiles can be computed across relays")
          .isTrue();
      assertThat(scrape.value("tandem_relay_lease_renewals_total", "relay", "r-metrics"))
          .isGreaterThanOrEqualTo(64);
      assertThat(scrape.value("tandem_relay_lease_expiries_total", "relay", "r-metrics"))
          .isEqualTo(64);
      assertThat(scrape.value("tandem_relay_lease_acquisitions_total", "relay", "r-metrics"))
          .as("taken at the start, and again after they ran out")
          .isEqualTo(128);
      assertThat(scrape.value("tandem_relay_partitions_owned", "relay", "r-metrics")).isEqualTo(64);
      assertThat(scrape.value("tandem_outbox_pending"))
          .as("o-0 v2, behind the quarantine")
          .isEqualTo(1);
      assertThat(scrape.value("tandem_outbox_oldest_pending_age")).isPositive();
      assertThat(scrape.value("tandem_outbox_quarantined")).isEqualTo(1);
      assertThat(scrape.value("tandem_outbox_skipped")).isEqualTo(1);
      assertThat(scrape.value("tandem_outbox_partitions_unowned")).isZero();
      assertThat(scrape.value("tandem_outbox_partitions_stranded")).isZero();
      assertThat(scrape.value("tandem_outbox_relays")).isEqualTo(1);
    }
  }

  /** Runs the relay once; true when only {@code quarantined} events (and those behind) are left. */
  private boolean drained(OutboxRelay relay, int quarantined) {
    relay.runOnce();
    return db.count(
                "SELECT count(*) FROM tandem_outbox WHERE quarantined_at IS NOT NULL"
                    + " AND skipped_at IS NULL")
            == quarantined
        && db.count(
                "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL"
                    + " AND skipped_at IS NULL")
            == quarantined * 2L;
  }

  private static PrometheusScrape scrape(PrometheusMeterRegistry registry) {
    return PrometheusScrape.parse(registry.scrape());
  }

  @Test
  void skippingAQuarantinedEventRecordsTheReasonAndReleasesItsAggregate() {
    List<Event> events = append(1, 3);
    transport.failWith = e -> e.aggregateVersion() == 1 ? ErrorClass.SERIALIZATION : null;
    OutboxRelay relay = relay("r-skip").build();
    drain(relay);
    OutboxOperations ops = OutboxOperations.create(db.dataSource);
    assertThatThrownBy(() -> ops.skip(events.get(0).eventId(), " "))
        .hasMessageContaining("a reason is required");
    ops.skip(events.get(0).eventId(), "payload superseded; ticket OPS-1");
    drain(relay);
    assertThat(transport.acknowledged).extracting(Event::aggregateVersion).containsExactly(2L, 3L);
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE skipped_at IS NOT NULL"
                    + " AND skip_reason = 'payload superseded; ticket OPS-1'"
                    + " AND published_at IS NULL"))
        .isEqualTo(1);
    assertThat(ops.status().skipped()).isEqualTo(1);
  }

  @Test
  void anEventIsQuarantinedAfterMaxAttempts() {
    append(1, 1);
    transport.failWith = e -> ErrorClass.TIMEOUT;
    OutboxRelay relay = relay("r-max").retryPolicy(retrying(Duration.ofMillis(1), 3)).build();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              relay.runOnce();
              return db.count("SELECT count(*) FROM tandem_outbox WHERE quarantined_at IS NOT NULL")
                  == 1;
            });
    assertThat(db.count("SELECT attempts FROM tandem_outbox")).isEqualTo(3);
  }

  @Test
  void anIdleRelayIsWokenByTheInsertNotificationNotByItsPoll() {
    Assumptions.assumeTrue(announcesInserts(), "this database has no insert notifications");
    // Poll and heartbeat far apart: only the notification can make the relay look in time.
    OutboxRelay deaf = startedOwningAll(notifiedOnly("r-sleepy").listenForInserts(false));
    append(1, 1);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(() -> unpublished() == 1); // the control: without LISTEN it stays unpublished
    deaf.close();

    OutboxRelay listening = startedOwningAll(notifiedOnly("r-listening"));
    await().atMost(Duration.ofSeconds(3)).until(() -> unpublished() == 0);
    append("late-", 1, 1);
    await().atMost(Duration.ofSeconds(3)).until(() -> unpublished() == 0);
    assertThat(listening.publishedCount()).isEqualTo(2);
  }

  @Test
  void aBusyRelayStopsListeningSoWritersSkipTheNotificationAndListensAgainWhenIdle()
      throws Exception {
    Assumptions.assumeTrue(announcesInserts(), "this database has no insert notifications");
    transport.delay = Duration.ofMillis(5); // each cycle takes a broker round trip
    OutboxRelay relay = startedOwningAll(notifiedOnly("r-busy"));
    assertThat(listening("r-busy")).as("an idle relay listens").isTrue();

    // A steady stream: every read finds rows, so the relay keeps reading without notifications.
    AtomicBoolean stop = new AtomicBoolean();
    List<Long> seenOff = new ArrayList<>();
    Thread writer =
        new Thread(
            () -> {
              for (int i = 0; !stop.get(); i++) {
                append("stream-" + i + "-", 1, 1);
                if (!listening("r-busy")) {
                  seenOff.add((long) i);
                }
                sleepMillis(1);
              }
            });
    writer.start();
    try {
      await().atMost(Duration.ofSeconds(15)).until(() -> !seenOff.isEmpty());
    } finally {
      stop.set(true);
      writer.join();
    }
    // The relay caught up with the stream's end by reading, not by a notification.
    await().atMost(Duration.ofSeconds(5)).until(() -> unpublished() == 0);
    await()
        .atMost(Duration.ofSeconds(5))
        .alias("idle again, the relay listens")
        .until(() -> listening("r-busy"));

    // Idle with a 30 s poll: only the notification can bring this one out in time.
    Thread.sleep(500); // past the relay's one late look after its busy stretch
    long before = relay.publishedCount();
    append("after-", 1, 1);
    await().atMost(Duration.ofSeconds(3)).until(() -> unpublished() == 0);
    assertThat(relay.publishedCount()).isEqualTo(before + 1);
    assertAckedInAggregateOrder();
  }

  @Test
  void aBusyRelayLingersBetweenCyclesSoItsBatchesGrowWithTheLoad() throws Exception {
    Assumptions.assumeTrue(announcesInserts(), "this database has no insert notifications");
    OutboxRelay relay =
        startedOwningAll(notifiedOnly("r-linger").lingerWhenBusy(Duration.ofMillis(300)));

    // A stream of single-event transactions for 3 s, without pauses between them.
    long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    int appended = 0;
    while (System.nanoTime() < end) {
      append("linger-" + appended + "-", 1, 1);
      appended++;
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> unpublished() == 0);
    List<Integer> sizes = List.copyOf(transport.batchSizes);
    assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(appended);
    // The relay counts as busy after 8 cycles that each found rows; from then on, a batch holds
    // what the stream committed in 300 ms. A relay reading straight after each cycle (or woken by
    // each notification) publishes these one transaction at a time instead: batches of 1 or 2.
    assertThat(sizes.size()).as("%d events in batches %s", appended, sizes).isGreaterThan(10);
    List<Integer> busy = sizes.subList(8, sizes.size() - 1); // the tail may be short
    assertThat(busy.stream().mapToInt(Integer::intValue).average().orElseThrow())
        .as("mean batch once busy, of %d events in batches %s", appended, sizes)
        .isGreaterThanOrEqualTo(3.0);
    assertAckedInAggregateOrder();
  }

  @Test
  void anIdleRelayRetriesWhenTheRetryFallsDueNotAtItsNextPoll() {
    List<Event> events = append(1, 1);
    AtomicInteger calls = new AtomicInteger();
    transport.failWith = e -> calls.getAndIncrement() == 0 ? ErrorClass.TIMEOUT : null;
    // A 30 s poll and a 15 s heartbeat: within the test only the retry's own due time can make
    // the relay read again (nothing is appended after the failure, so no notification comes).
    OutboxRelay relay =
        started(notifiedOnly("r-retry-due").retryPolicy(retrying(Duration.ofMillis(200), 5)));
    await().atMost(Duration.ofSeconds(5)).until(() -> relay.publishedCount() == 1);
    assertThat(transport.attempts).containsEntry(events.get(0).eventId(), 2);
    assertThat(unpublished()).isZero();
  }

  @Test
  void aRelayWhoseBatchesAreNotAcknowledgedNeverCountsAsBusy() throws Exception {
    Assumptions.assumeTrue(announcesInserts(), "this database has no insert notifications");
    AtomicBoolean brokerDown = new AtomicBoolean(true);
    transport.failWith = e -> brokerDown.get() ? ErrorClass.BROKER_UNAVAILABLE : null;
    OutboxRelay relay = startedOwningAll(notifiedOnly("r-down").retryPolicy(retryingForever()));

    // Every commit wakes the relay and every read finds rows, as in aBusyRelayStopsListening...,
    // but no batch is acknowledged: the relay must keep listening and waiting, not read in a loop
    // with the notifications off.
    long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    int appended = 0;
    boolean everOff = false;
    while (System.nanoTime() < end) {
      append("down-" + appended + "-", 1, 1);
      appended++;
      everOff |= !listening("r-down");
    }
    assertThat(transport.batchSizes.size())
        .as("the relay tried the stream's batches")
        .isGreaterThan(8);
    assertThat(everOff).as("listening switched off while nothing was acknowledged").isFalse();
    assertThat(listening("r-down")).isTrue();

    brokerDown.set(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> unpublished() == 0);
    assertThat(relay.publishedCount()).isEqualTo(appended);
    assertAckedInAggregateOrder();
  }

  /**
   * Retries 10 to 50 ms apart, up to 1,000 attempts: a broker outage in a test never quarantines.
   */
  private static RetryPolicy retryingForever() {
    return RetryPolicy.builder()
        .base(Duration.ofMillis(10))
        .cap(Duration.ofMillis(50))
        .maxAttempts(1000)
        .build();
  }

  /** Retries at most {@code delay} apart (full jitter), up to {@code maxAttempts} attempts. */
  private static RetryPolicy retrying(Duration delay, int maxAttempts) {
    return RetryPolicy.builder().base(delay).cap(delay).maxAttempts(maxAttempts).build();
  }

  /** Starts the relay and waits until it owns every partition (it is then the only relay). */
  private OutboxRelay startedOwningAll(OutboxRelay.Builder builder) {
    OutboxRelay relay = started(builder);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> relay.status().ownedPartitions().size() == 64);
    return relay;
  }

  /** A relay that, within a test's time, reads only when notified (a 30 s fallback poll). */
  private OutboxRelay.Builder notifiedOnly(String relayId) {
    return relay(relayId)
        .pollInterval(Duration.ofSeconds(30))
        .heartbeatInterval(Duration.ofSeconds(15))
        .leaseDuration(Duration.ofSeconds(40));
  }

  private boolean listening(String relayId) {
    return db.count(
            "SELECT count(*) FROM tandem_relay_instance WHERE relay_id = '"
                + relayId
                + "' AND listening")
        == 1;
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aTransportThatThrowsLosesNothingAndTheRelayKeepsRunning() {
    List<Event> events = append(10, 2);
    transport.throwNext.set(3);
    OutboxRelay relay = started(relay("r-throws"));
    await().atMost(Duration.ofSeconds(20)).until(() -> unpublished() == 0);
    assertThat(relay.isRunning()).isTrue();
    assertThat(transport.throwNext.get()).isZero();
    assertThat(transport.acknowledged)
        .extracting(Event::eventId)
        .containsAll(events.stream().map(Event::eventId).toList());
    assertAckedInAggregateOrder();
  }

  @Test
  void gracefulShutdownFinishesTheBatchInFlight() throws InterruptedException {
    append(20, 1);
    transport.delay = Duration.ofMillis(800);
    OutboxRelay relay =
        started(relay("r-close").batchSize(20).publishTimeout(Duration.ofSeconds(2)));
    assertThat(transport.publishing.await(5, TimeUnit.SECONDS)).isTrue();
    relay.close();
    assertThat(relay.isRunning()).isFalse();
    assertThat(unpublished()).isZero();
    assertThat(transport.acknowledged).hasSize(20);
  }

  @Test
  void theStatusShowsBacklogAndPartitionsNobodyOwns() {
    append(10, 1);
    OutboxStatus status = OutboxOperations.create(db.dataSource).status();
    assertThat(status.pending()).isEqualTo(10);
    assertThat(status.oldestPendingAge()).isPositive();
    assertThat(status.stranded()).isNotEmpty();
    assertThat(status.stranded().stream().mapToLong(OutboxStatus.Partition::pending).sum())
        .isEqualTo(10);
  }

  @Test
  void invalidSettingsAreRefusedWithTheParameterName() {
    assertThatThrownBy(() -> relay("x").batchSize(0).build())
        .hasMessageContaining("batchSize must be between 1 and 10000, was 0");
    assertThatThrownBy(
            () ->
                relay("x")
                    .leaseDuration(Duration.ofSeconds(2))
                    .publishTimeout(Duration.ofSeconds(2))
                    .build())
        .hasMessageContaining(
            "leaseDuration (PT2S) must exceed publishTimeout + heartbeatInterval");
    assertThatThrownBy(() -> relay("x").lingerWhenBusy(Duration.ofMillis(-1)).build())
        .hasMessageContaining("lingerWhenBusy must be between 0 and 1 s, was PT-0.001S");
    assertThatThrownBy(() -> relay("x").lingerWhenBusy(Duration.ofSeconds(2)).build())
        .hasMessageContaining("lingerWhenBusy must be between 0 and 1 s, was PT2S");
    assertThatThrownBy(() -> OutboxRelay.builder().transport(transport).build())
        .hasMessage("dataSource is required");
  }
}
