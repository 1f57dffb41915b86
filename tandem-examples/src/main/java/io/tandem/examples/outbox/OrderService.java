package io.tandem.examples.outbox;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The order service of the reference flow. Confirming an order updates its row and appends an
 * {@code OrderConfirmed} event to the outbox in one local transaction, and nothing else: no broker
 * call anywhere in this class.
 */
public final class OrderService {
  public static final String AGGREGATE_TYPE = "Order";
  public static final String ORDER_CONFIRMED = "OrderConfirmed";

  private final DataSource dataSource;
  private final Outbox outbox = Outbox.create();

  public OrderService(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Creates the service's business table. */
  public void createSchema() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS demo_orders (
              id          text PRIMARY KEY,
              customer    text   NOT NULL,
              total_cents bigint NOT NULL,
              status      text   NOT NULL,
              version     bigint NOT NULL)
          """);
    }
  }

  /** Inserts {@code count} pending orders {@code order-1 .. order-count} (version 1). */
  public void createPendingOrders(int count) throws SQLException {
    Transactions.inTransaction(
        dataSource,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO demo_orders (id, customer, total_cents, status, version)"
                      + " VALUES (?, ?, ?, 'PENDING', 1)")) {
            for (int i = 1; i <= count; i++) {
              ps.setString(1, orderId(i));
              ps.setString(2, "customer-" + (i % 97));
              ps.setLong(3, amountCents(i));
              ps.addBatch();
            }
            ps.executeBatch();
          }
          return null;
        });
  }

  public static String orderId(int n) {
    return "order-" + n;
  }

  /** The deterministic order total used by the demo: 10.00 to 109.99. */
  public static long amountCents(int n) {
    return 1000 + (n * 7919L) % 10_000;
  }

  /**
   * Confirms a pending order: status and version change, and the event is appended, in one
   * transaction.
   *
   * @return the event id of the committed {@code OrderConfirmed} event
   */
  public UUID confirm(String orderId) throws SQLException {
    return Transactions.inTransaction(
        dataSource,
        c -> {
          long total;
          long version;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE demo_orders SET status = 'CONFIRMED', version = version + 1"
                      + " WHERE id = ? AND status = 'PENDING' RETURNING total_cents, version")) {
            ps.setString(1, orderId);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                throw new IllegalStateException("order " + orderId + " is not pending");
              }
              total = rs.getLong(1);
              version = rs.getLong(2);
            }
          }
          Event event =
              Event.builder()
                  .aggregate(AGGREGATE_TYPE, orderId, version)
                  .eventType(ORDER_CONFIRMED)
                  .payload("{\"orderId\":\"" + orderId + "\",\"totalCents\":" + total + "}")
                  .headers(EventHeaders.builder().correlationId(orderId).build())
                  .build();
          outbox.append(c, event);
          return event.eventId();
        });
  }
}
