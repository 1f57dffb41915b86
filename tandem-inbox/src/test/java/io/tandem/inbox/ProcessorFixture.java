package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.RetryPolicy;
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
import org.junit.jupiter.api.TestInstance;

/**
 * What the processor's tests share: a fresh, migrated database per class (subclassed per database),
 * a fresh consumer per test, events of one aggregate type, and the invoice handler whose rows tell
 * which effects committed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProcessorFixture {
  InboxDatabase db;

  String consumer;

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

  static Event event(String aggregate, long version, String type, int schema) {
    return Event.builder()
        .aggregate("Order", aggregate, version)
        .eventType(type)
        .schemaVersion(schema)
        .payload("{\"orderId\":\"" + aggregate + "\",\"v\":" + version + ",\"addedLater\":true}")
        .build();
  }

  static Event event(String aggregate, long version) {
    return event(aggregate, version, "OrderPlaced", 1);
  }

  InboxProcessor.Builder processor() {
    return InboxProcessor.builder()
        .dataSource(db.dataSource)
        .consumer(consumer)
        .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build())
        .on("OrderPlaced", this::invoice);
  }

  void invoice(Connection c, Event e) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO invoices (order_id, event_id) VALUES (?, ?)")) {
      ps.setString(1, e.aggregateId() + "#" + e.aggregateVersion() + "@" + consumer);
      ps.setObject(2, e.eventId());
      ps.executeUpdate();
    }
  }

  List<String> invoices() throws SQLException {
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
}
