package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.InvalidEventException;
import io.tandem.core.TandemException;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The append contract, run per database by {@link PostgresOutboxAppendTest} and others. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxAppendTest {
  private OutboxDatabase db;
  private final Outbox outbox = Outbox.create();

  /** Creates this suite's database on the server under test. */
  abstract OutboxDatabase openDatabase(String prefix);

  @BeforeAll
  void setUp() throws SQLException {
    db = openDatabase("outbox_append");
    db.execute(
        "CREATE TABLE orders (id varchar(64) PRIMARY KEY, status varchar(32) NOT NULL,"
            + " version bigint)");
  }

  @AfterAll
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  @BeforeEach
  void clean() throws SQLException {
    db.execute("DELETE FROM orders");
    db.clearOutbox();
  }

  private static Event confirmed(String orderId, long version) {
    return Event.builder()
        .aggregate("Order", orderId, version)
        .eventType("OrderConfirmed")
        .payload("{\"orderId\":\"" + orderId + "\"}")
        .headers(EventHeaders.builder().correlationId("c-" + orderId).tenant("acme").build())
        .build();
  }

  private void insertOrder(Connection c, String id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO orders (id, status, version) VALUES (?, 'CONFIRMED', 1)")) {
      ps.setString(1, id);
      ps.executeUpdate();
    }
  }

  @Test
  void commitKeepsTheBusinessRowAndTheEventTogether() throws SQLException {
    Event event = confirmed("o-1", 1);
    Transactions.inTransaction(
        db.dataSource,
        c -> {
          insertOrder(c, "o-1");
          outbox.append(c, event);
          return null;
        });
    assertThat(db.count("SELECT count(*) FROM orders")).isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE event_id = '"
                    + event.eventId()
                    + "' AND published_at IS NULL"
                    + " AND "
                    + db.jsonText("headers", "correlationid")
                    + " = 'c-o-1'"))
        .isEqualTo(1);
  }

  @Test
  void rollbackLeavesNeitherTheBusinessRowNorTheEvent() {
    assertThatThrownBy(
            () ->
                Transactions.inTransaction(
                    db.dataSource,
                    c -> {
                      insertOrder(c, "o-2");
                      outbox.append(c, confirmed("o-2", 1));
                      throw new IllegalStateException("business rule failed after the append");
                    }))
        .hasMessage("business rule failed after the append");
    assertThat(db.count("SELECT count(*) FROM orders")).isZero();
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isZero();
  }

  @Test
  void anInvalidEventIsRefusedBeforeAnythingIsWritten() {
    assertThatThrownBy(
            () ->
                Transactions.inTransaction(
                    db.dataSource,
                    c -> {
                      insertOrder(c, "o-3");
                      outbox.append(
                          c,
                          Event.builder()
                              .aggregate("Order", "o-3", 1)
                              .eventType("OrderConfirmed")
                              .payload("{not json")
                              .build());
                      return null;
                    }))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("payload is not valid JSON");
    assertThat(db.count("SELECT count(*) FROM orders")).isZero();
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isZero();
  }

  @Test
  void appendRefusesAConnectionWithoutAnOpenTransaction() throws SQLException {
    try (Connection c = db.dataSource.getConnection()) {
      assertThatThrownBy(() -> outbox.append(c, confirmed("o-4", 1)))
          .isInstanceOf(TandemException.class)
          .hasMessageContaining("auto-commit mode");
    }
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isZero();
  }

  @Test
  void aRepeatedAggregateVersionIsAConflict() {
    Transactions.inTransaction(
        db.dataSource,
        c -> {
          outbox.append(c, confirmed("o-5", 1));
          return null;
        });
    assertThatThrownBy(
            () ->
                Transactions.inTransaction(
                    db.dataSource,
                    c -> {
                      outbox.append(c, confirmed("o-5", 1));
                      return null;
                    }))
        .isInstanceOf(OutboxConflictException.class)
        .hasMessageContaining("aggregate_version must grow by one");
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isEqualTo(1);
  }

  @Test
  void aRepeatedAggregateVersionInOneBatchIsAConflictAndNothingIsWritten() {
    assertThatThrownBy(
            () ->
                Transactions.inTransaction(
                    db.dataSource,
                    c -> {
                      outbox.appendAll(c, List.of(confirmed("o-8", 1), confirmed("o-8", 1)));
                      return null;
                    }))
        .isInstanceOf(OutboxConflictException.class)
        .hasMessageContaining("aggregate_version must grow by one");
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isZero();
  }

  @Test
  void theDatabaseRefusesToEditAPayload() {
    Event event = confirmed("o-6", 1);
    Transactions.inTransaction(
        db.dataSource,
        c -> {
          outbox.append(c, event);
          return null;
        });
    assertThatThrownBy(
            () -> db.execute("UPDATE tandem_outbox SET payload = '{\"orderId\":\"forged\"}'"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("event columns of event " + event.eventId() + " are immutable");
    assertThatThrownBy(() -> db.execute("UPDATE tandem_outbox SET event_id = " + db.randomUuid()))
        .hasMessageContaining("are immutable");
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE "
                    + db.jsonText("payload", "orderId")
                    + " = 'o-6'"))
        .isEqualTo(1);
  }

  @Test
  void theDatabaseRefusesToDeleteAnUnpublishedEventButAllowsDeliveryUpdates() throws SQLException {
    Transactions.inTransaction(
        db.dataSource,
        c -> {
          outbox.appendAll(c, List.of(confirmed("o-7", 1), confirmed("o-7", 2)));
          return null;
        });
    assertThatThrownBy(() -> db.execute("DELETE FROM tandem_outbox"))
        .hasMessageContaining("is not published yet and cannot be deleted");
    db.execute(
        "UPDATE tandem_outbox SET attempts = 3, last_error = 'x', published_at = "
            + db.now()
            + " WHERE aggregate_version = 1");
    db.execute("DELETE FROM tandem_outbox WHERE published_at IS NOT NULL");
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isEqualTo(1);
  }

  @Test
  void theDocumentedPlainSqlInsertWorks() throws SQLException {
    // The statement the README gives to services written in other languages (with the
    // database's clock: now() on PostgreSQL, UTC_TIMESTAMP(6) on MariaDB).
    db.execute(
        """
        INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id, aggregate_version,
                                   event_type, schema_version, payload, headers, occurred_at)
        VALUES ('0192f0c1-7a2b-7cde-8f01-23456789abcd', 'Order', 'order-42', 1,
                'OrderConfirmed', 1, '{"orderId": "order-42", "total": 1250}',
                '{"correlationid": "checkout-42"}',\s"""
            + db.now()
            + ")");
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE aggregate_id = 'order-42'"))
        .isEqualTo(1);
  }

  @Test
  void migratingAgainIsANoOp() {
    assertThat(Migrations.migrate(db.dataSource)).isZero();
  }
}
