package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutboxRelayTest {
  private static OutboxDatabase db;
  private final Outbox outbox = Outbox.create();
  private final RecordingTransport transport = new RecordingTransport();
  private final List<OutboxRelay> relays = new ArrayList<>();

  @BeforeAll
  static void setUp() {
    db = new OutboxDatabase("outbox_relay");
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @AfterEach
  void stopRelays() {
    relays.forEach(OutboxRelay::close);
  }

  @BeforeEach
  void clean() throws SQLException {
    db.execute("ALTER TABLE tandem_outbox DISABLE TRIGGER tandem_outbox_guard");
    db.execute("DELETE FROM tandem_outbox");
    db.execute("ALTER TABLE tandem_outbox ENABLE TRIGGER tandem_outbox_guard");
  }

  private List<Event> append(int aggregates, int versionsEach) {
    List<Event> events = new ArrayList<>();
    for (int v = 1; v <= versionsEach; v++) {
      for (int a = 0; a < aggregates; a++) {
        events.add(
            Event.builder()
                .aggregate("Order", "o-" + a, v)
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
        .publishTimeout(Duration.ofSeconds(2))
        .leaseDuration(Duration.ofSeconds(5));
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

  /** Same envelope; the payload is equal as JSON (jsonb normalises whitespace and key order). */
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

  @Test
  void publishesEveryCommittedEventAndMarksItAfterTheAck() {
    List<Event> events = append(10, 3);
    OutboxRelay relay = relay("r1").build();
    int claimed;
    do {
      claimed = relay.runOnce();
    } while (claimed > 0);
    assertThat(transport.acknowledged)
        .extracting(Event::eventId)
        .containsExactlyElementsOf(events.stream().map(Event::eventId).toList());
    assertSameEvent(transport.acknowledged.get(0), events.get(0));
    assertThat(unpublished()).isZero();
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE claimed_by IS NOT NULL"))
        .isZero();
    assertThat(relay.publishedCount()).isEqualTo(30);
  }

  @Test
  void twoRelaysOnOneTablePublishEveryEventExactlyOnceWhenNothingCrashes() {
    List<Event> events = append(200, 5);
    transport.delay = Duration.ofMillis(5);
    started(relay("r-a"));
    started(relay("r-b"));
    await().atMost(Duration.ofSeconds(30)).until(() -> unpublished() == 0);
    Set<UUID> seen = new HashSet<>();
    for (Event e : transport.acknowledged) {
      assertThat(seen.add(e.eventId())).as("published twice: %s", e).isTrue();
    }
    assertThat(seen).hasSize(events.size());
    assertThat(relays.get(0).publishedCount()).isPositive();
    assertThat(relays.get(1).publishedCount()).isPositive();
  }

  @Test
  void aRelayThatDiesAfterTheAckLeavesTheRowsToBePublishedAgainWithTheSameIds() {
    List<Event> events = append(5, 1);
    FaultInjector dieAfterAck =
        point -> {
          if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
            throw new FaultInjector.SimulatedCrash(point);
          }
        };
    OutboxRelay doomed =
        started(relay("doomed").faultInjector(dieAfterAck).leaseDuration(Duration.ofSeconds(3)));
    await().atMost(Duration.ofSeconds(10)).until(doomed::hasCrashed);
    assertThat(transport.acknowledged).hasSize(5);
    assertThat(unpublished()).isEqualTo(5);
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE claimed_by = 'doomed'"))
        .isEqualTo(5);

    OutboxRelay successor = relay("successor").build();
    assertThat(successor.runOnce()).as("the lease still protects the rows").isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> successor.runOnce() > 0);

    assertThat(unpublished()).isZero();
    assertThat(transport.acknowledged).hasSize(10);
    for (Event e : events) {
      assertThat(transport.attempts.get(e.eventId())).isEqualTo(2);
    }
    for (int i = 0; i < 5; i++) {
      assertSameEvent(transport.acknowledged.get(5 + i), events.get(i));
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
                    + " AND next_attempt_at > now() - interval '1 second' AND claimed_by IS NULL"
                    + " AND published_at IS NULL AND quarantined_at IS NULL"))
        .isEqualTo(1);
  }

  @Test
  void aRetriedEventIsPublishedWithItsOriginalIdOnceTheBrokerRecovers() {
    List<Event> events = append(3, 1);
    AtomicBoolean brokerDown = new AtomicBoolean(true);
    transport.failWith = e -> brokerDown.get() ? ErrorClass.TIMEOUT : null;
    OutboxRelay relay =
        started(
            relay("r-recover")
                .retryPolicy(
                    RetryPolicy.builder()
                        .base(Duration.ofMillis(10))
                        .cap(Duration.ofMillis(50))
                        .maxAttempts(1000)
                        .build()));
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
    assertThat(relay.failedCount()).isGreaterThanOrEqualTo(9);
  }

  @Test
  void aPermanentFailureQuarantinesTheEvent() {
    append(2, 1);
    transport.failWith = e -> e.aggregateId().equals("o-0") ? ErrorClass.RECORD_TOO_LARGE : null;
    OutboxRelay relay = relay("r-perm").build();
    relay.runOnce();
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE quarantined_at IS NOT NULL"
                    + " AND error_class = 'RECORD_TOO_LARGE' AND aggregate_id = 'o-0'"))
        .isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL"))
        .isEqualTo(1);
    assertThat(relay.runOnce()).as("a quarantined event is not claimed again").isZero();
  }

  @Test
  void anEventIsQuarantinedAfterMaxAttempts() {
    append(1, 1);
    transport.failWith = e -> ErrorClass.TIMEOUT;
    OutboxRelay relay =
        relay("r-max")
            .retryPolicy(
                RetryPolicy.builder()
                    .base(Duration.ofMillis(1))
                    .cap(Duration.ofMillis(1))
                    .maxAttempts(3)
                    .build())
            .build();
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
  void gracefulShutdownFinishesTheBatchInFlight() {
    append(20, 1);
    transport.delay = Duration.ofMillis(1500);
    OutboxRelay relay = started(relay("r-close").batchSize(20));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                db.count("SELECT count(*) FROM tandem_outbox WHERE claimed_by = 'r-close'") == 20);
    relay.close();
    assertThat(relay.isRunning()).isFalse();
    assertThat(unpublished()).isZero();
    assertThat(transport.acknowledged).hasSize(20);
  }

  @Test
  void invalidSettingsAreRefusedWithTheParameterName() {
    assertThatThrownBy(() -> relay("x").batchSize(0).build())
        .hasMessageContaining("batchSize must be between 1 and 10000, was 0");
    assertThatThrownBy(
            () ->
                relay("x")
                    .leaseDuration(Duration.ofSeconds(1))
                    .publishTimeout(Duration.ofSeconds(2))
                    .build())
        .hasMessageContaining("leaseDuration (PT1S) must exceed publishTimeout (PT2S)");
    assertThatThrownBy(() -> OutboxRelay.builder().transport(transport).build())
        .hasMessage("dataSource is required");
  }
}
