package io.tandem.inbox;

import io.tandem.core.Event;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * What the batched path's tests share: a fresh, migrated database per class (subclassed per
 * database), a fresh consumer per test, the invoice handler, and a message whose acknowledgement
 * reads the committed effects from another connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BatchFixture {
  InboxDatabase db;

  String consumer;

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

  static Event event(String aggregate, long version) {
    return Event.builder()
        .aggregate("Order", aggregate, version)
        .eventType("OrderPlaced")
        .payload("{\"orderId\":\"" + aggregate + "\",\"v\":" + version + "}")
        .build();
  }

  InboxProcessor.Builder processor(InboxWork<SQLException> handler) {
    return InboxProcessor.builder()
        .dataSource(db.dataSource)
        .consumer(consumer)
        .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build())
        .on("OrderPlaced", handler);
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

  List<String> invoicesOf(String aggregate) throws SQLException {
    return invoices().stream().filter(r -> r.startsWith(aggregate + "#")).toList();
  }

  static List<TestMessage> messages(Event... events) {
    List<TestMessage> messages = new ArrayList<>();
    for (Event e : events) {
      messages.add(TestMessage.of(e));
    }
    return messages;
  }

  /** A message whose ack counts, from another connection, the consumer's committed effects. */
  final class CheckingMessage implements InboundMessage {
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
