package io.tandem.saga.trail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.inbox.HandleResult;
import io.tandem.inbox.Inbox;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.saga.SagaTrail;
import io.tandem.saga.TrailEntry;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The saga trail on real databases: three services, each with its own database, the middle one
 * ("payment") on the server under test and the others on PostgreSQL, so the MariaDB subclass also
 * checks a trail mixing both families.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SagaTrailContract {
  private static final Instant T0 = Instant.parse("2025-06-01T08:00:00.000001Z");

  private IsolatedDatabase orderDb;
  private IsolatedDatabase paymentDb;
  private IsolatedDatabase shippingDb;
  private SagaTrail trail;
  private final Outbox outbox = Outbox.create();

  /** The server of the "payment" service's database. */
  abstract DatabaseServer server();

  @BeforeAll
  void databases() {
    orderDb = TestInfrastructure.postgres().createDatabase("trail_order");
    paymentDb = server().createDatabase("trail_payment");
    shippingDb = TestInfrastructure.postgres().createDatabase("trail_shipping");
    for (IsolatedDatabase db : List.of(orderDb, paymentDb, shippingDb)) {
      Migrations.migrate(db.dataSource());
    }
    trail =
        SagaTrail.builder()
            .service("order", orderDb.dataSource())
            .service("payment", paymentDb.dataSource())
            .service("shipping", shippingDb.dataSource())
            .build();
  }

  @AfterAll
  void drop() {
    for (IsolatedDatabase db : new IsolatedDatabase[] {orderDb, paymentDb, shippingDb}) {
      if (db != null) {
        db.close();
      }
    }
  }

  @Test
  void listsEveryEventOfOneTransactionAcrossServicesInTimeOrder() {
    String cid = unique("checkout");
    String other = unique("checkout");
    String order = unique("o");
    // Written out of time order, and interleaved with another transaction's events.
    append(shippingDb, event("Shipment", order, 1, "ShipmentRequested", cid, 30));
    append(orderDb, event("Order", order, 1, "OrderCreated", cid, 0));
    append(paymentDb, event("Payment", order, 1, "PaymentAuthorized", cid, 10));
    append(orderDb, event("Order", unique("o"), 1, "OrderCreated", other, 5));
    append(orderDb, event("Order", order, 2, "OrderConfirmed", cid, 40));
    append(paymentDb, event("Payment", unique("p"), 1, "PaymentAuthorized", null, 12));

    List<TrailEntry> entries = trail.find(cid);

    assertThat(entries)
        .extracting(
            TrailEntry::service,
            TrailEntry::eventType,
            TrailEntry::aggregateType,
            TrailEntry::aggregateId,
            TrailEntry::aggregateVersion,
            TrailEntry::occurredAt)
        .containsExactly(
            tuple("order", "OrderCreated", "Order", order, 1L, T0),
            tuple("payment", "PaymentAuthorized", "Payment", order, 1L, T0.plusMillis(10)),
            tuple("shipping", "ShipmentRequested", "Shipment", order, 1L, T0.plusMillis(30)),
            tuple("order", "OrderConfirmed", "Order", order, 2L, T0.plusMillis(40)));
    assertThat(entries).allSatisfy(e -> assertThat(e.outboxId()).isPositive());
    assertThat(trail.find(other)).extracting(TrailEntry::eventType).containsExactly("OrderCreated");
  }

  @Test
  void eventsOfTheSameInstantComeInOutboxOrder() {
    String cid = unique("checkout");
    String order = unique("o");
    Event first = event("Order", order, 1, "OrderCreated", cid, 0);
    Event second = event("Order", order, 2, "OrderNoted", cid, 0);
    append(orderDb, first);
    append(orderDb, second);

    assertThat(trail.find(cid))
        .extracting(TrailEntry::eventId)
        .containsExactly(first.eventId(), second.eventId());
  }

  @Test
  void publishedAtIsNullUntilTheRelayRecordedThePublication() throws Exception {
    String cid = unique("checkout");
    Event published = event("Payment", unique("p"), 1, "PaymentAuthorized", cid, 0);
    Event pending = event("Payment", unique("p"), 1, "PaymentDeclined", cid, 1);
    append(paymentDb, published);
    append(paymentDb, pending);
    Instant at = T0.plusSeconds(1);
    markPublished(paymentDb, published.eventId(), at);

    List<TrailEntry> entries = trail.find(cid);

    assertThat(entries)
        .extracting(TrailEntry::eventId)
        .containsExactly(published.eventId(), pending.eventId());
    assertThat(entries.get(0).publishedAt()).isEqualTo(at);
    assertThat(entries.get(0).published()).isTrue();
    assertThat(entries.get(1).publishedAt()).isNull();
    assertThat(entries.get(1).published()).isFalse();
  }

  @Test
  void consumersOfEveryServiceAreListedOncePerInboxRecord() {
    String cid = unique("checkout");
    String order = unique("o");
    Event created = event("Order", order, 1, "OrderCreated", cid, 0);
    Event authorized = event("Payment", order, 1, "PaymentAuthorized", cid, 10);
    append(orderDb, created);
    append(paymentDb, authorized);
    Instant before = Instant.now().minusSeconds(5);
    Inbox paymentInbox = Inbox.builder().dataSource(paymentDb.dataSource()).build();
    Inbox shippingInbox = Inbox.builder().dataSource(shippingDb.dataSource()).build();
    Inbox orderInbox = Inbox.builder().dataSource(orderDb.dataSource()).build();
    assertThat(paymentInbox.handle("payment", created, (c, e) -> {}))
        .isEqualTo(HandleResult.APPLIED);
    assertThat(paymentInbox.handle("payment", created, (c, e) -> {}))
        .isEqualTo(HandleResult.DUPLICATE);
    assertThat(paymentInbox.handle("payment-audit", created, (c, e) -> {}))
        .isEqualTo(HandleResult.APPLIED);
    shippingInbox.handle("shipping", authorized, (c, e) -> {});
    orderInbox.handle("order", authorized, (c, e) -> {});
    Instant after = Instant.now().plusSeconds(5);

    List<TrailEntry> entries = trail.find(cid);

    assertThat(entries.get(0).consumedBy())
        .extracting(TrailEntry.Consumption::service, TrailEntry.Consumption::consumer)
        .containsExactlyInAnyOrder(tuple("payment", "payment"), tuple("payment", "payment-audit"));
    assertThat(entries.get(1).consumedBy())
        .extracting(TrailEntry.Consumption::service, TrailEntry.Consumption::consumer)
        .containsExactlyInAnyOrder(tuple("shipping", "shipping"), tuple("order", "order"));
    assertThat(entries)
        .flatExtracting(TrailEntry::consumedBy)
        .allSatisfy(c -> assertThat(c.processedAt()).isBetween(before, after));
    assertThat(entries.get(1).consumedBy())
        .extracting(TrailEntry.Consumption::processedAt)
        .isSorted();
    assertThat(entries.get(0).consumedBy("payment-audit")).isTrue();
    assertThat(entries.get(0).consumedBy("shipping")).isFalse();
  }

  @Test
  void anUnknownCorrelationIdHasAnEmptyTrail() {
    String cid = unique("nothing");
    assertThat(trail.find(cid)).isEmpty();
    assertThat(SagaTrail.render(cid, List.of())).contains(cid, "no events");
  }

  @Test
  void renderShowsOneLinePerEventWithRelativeTimes() {
    String cid = unique("checkout");
    String order = unique("o");
    Event created = event("Order", order, 1, "OrderCreated", cid, 0);
    append(orderDb, created);
    append(paymentDb, event("Payment", order, 1, "PaymentDeclined", cid, 25));
    Inbox.builder()
        .dataSource(paymentDb.dataSource())
        .build()
        .handle("payment", created, (c, e) -> {});

    String text = SagaTrail.render(cid, trail.find(cid));

    assertThat(text.lines().toList()).hasSize(3);
    assertThat(text.lines().toList().get(0)).isEqualTo("trail " + cid + ": 2 events");
    assertThat(text.lines().toList().get(1))
        .contains(
            "+0 ms",
            "order",
            "OrderCreated",
            "Order/" + order + " v1",
            "NOT PUBLISHED",
            "payment +");
    assertThat(text.lines().toList().get(2))
        .contains("+25 ms", "payment", "PaymentDeclined", "not consumed");
  }

  @Test
  void anUnreachableDatabaseIsReportedWithItsService() {
    PGSimpleDataSource down = new PGSimpleDataSource();
    down.setURL("jdbc:postgresql://127.0.0.1:" + TestEvents.closedPort() + "/x?connectTimeout=2");
    SagaTrail broken =
        SagaTrail.builder().service("order", orderDb.dataSource()).service("ledger", down).build();

    assertThatThrownBy(() -> broken.find("checkout-1"))
        .isInstanceOf(JdbcException.class)
        .hasMessageContaining("service ledger")
        .hasMessageContaining("checkout-1");
  }

  @Test
  void badArgumentsAreRefusedNamingTheParameter() {
    DataSource ds = orderDb.dataSource();
    assertThatThrownBy(() -> SagaTrail.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at least one service");
    assertThatThrownBy(() -> SagaTrail.builder().service(" ", ds))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("service name");
    assertThatThrownBy(() -> SagaTrail.builder().service("order", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dataSource of service order");
    assertThatThrownBy(() -> SagaTrail.builder().service("order", ds).service("order", ds))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("added twice");
    assertThatThrownBy(() -> trail.find(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("correlationId");
    assertThat(trail.services()).containsExactly("order", "payment", "shipping");
  }

  private static Event event(
      String type, String id, long version, String eventType, String correlationId, long millis) {
    EventHeaders.Builder headers = EventHeaders.builder().tenant("acme");
    if (correlationId != null) {
      headers.correlationId(correlationId);
    }
    return Event.builder()
        .aggregate(type, id, version)
        .eventType(eventType)
        .payload("{\"id\":\"" + id + "\"}")
        .headers(headers.build())
        .occurredAt(T0.plusMillis(millis))
        .build();
  }

  private void append(IsolatedDatabase db, Event event) {
    Transactions.inTransaction(
        db.dataSource(),
        conn -> {
          outbox.append(conn, event);
          return null;
        });
  }

  private static void markPublished(IsolatedDatabase db, UUID eventId, Instant at)
      throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE tandem_outbox SET published_at = ? WHERE event_id = ?")) {
      Dialect.of(c).bindInstant(ps, 1, at.truncatedTo(ChronoUnit.MICROS));
      ps.setObject(2, eventId);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
