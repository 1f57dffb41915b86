package io.tandem.examples.choreography;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.Event;
import io.tandem.inbox.InboxProcessor;
import io.tandem.outbox.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The payment service (PostgreSQL or MariaDB; portable SQL).
 *
 * <ul>
 *   <li>{@code OrderCreated} → charges the amount ({@code PaymentAuthorized}), or declines an
 *       amount above {@link OrderRequest#PAYMENT_LIMIT_CENTS} ({@code PaymentDeclined});
 *   <li>{@code OutOfStock} → refunds the charge ({@code PaymentRefunded}): the compensation.
 * </ul>
 *
 * <p>Money moves only as immutable rows of {@code choreo_payment_movement} ({@code CHARGE}, {@code
 * REFUND}), each with the event that caused it. The refund moves the payment from {@code
 * AUTHORIZED} to {@code REFUNDED} by a conditional update, so it happens at most once.
 */
final class PaymentService {
  static final String NAME = "payment";
  private static final Logger LOG = LoggerFactory.getLogger(PaymentService.class);

  private final DataSource dataSource;
  private final Outbox outbox = Outbox.create();

  PaymentService(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  void createSchema() throws SQLException {
    Sql.execute(
        dataSource,
        """
        CREATE TABLE choreo_payment (
            order_id     varchar(100) NOT NULL PRIMARY KEY,
            amount_cents bigint       NOT NULL,
            status       varchar(16)  NOT NULL,
            version      bigint       NOT NULL)
        """,
        """
        CREATE TABLE choreo_payment_movement (
            movement_id  varchar(36)  NOT NULL PRIMARY KEY,
            order_id     varchar(100) NOT NULL,
            kind         varchar(8)   NOT NULL,
            amount_cents bigint       NOT NULL,
            event_id     varchar(36)  NOT NULL)
        """);
  }

  /** A new processor of the service's inbox (consumer {@value #NAME}). */
  InboxProcessor processor(MeterRegistry meters) {
    return InboxProcessor.builder()
        .dataSource(dataSource)
        .consumer(NAME)
        .meterRegistry(meters)
        .on(Events.ORDER_CREATED, this::charge)
        .on(Events.OUT_OF_STOCK, this::refund)
        .build();
  }

  private void charge(Connection c, Event orderCreated) throws SQLException {
    Facts f = orderCreated.payloadAs(Facts.class);
    if (f.amountCents() > OrderRequest.PAYMENT_LIMIT_CENTS) {
      Sql.update(
          c,
          "INSERT INTO choreo_payment (order_id, amount_cents, status, version)"
              + " VALUES (?, ?, 'DECLINED', 1)",
          f.orderId(),
          f.amountCents());
      Facts declined = f.because("amount above the limit of " + OrderRequest.PAYMENT_LIMIT_CENTS);
      outbox.append(
          c, Events.reaction(orderCreated, Events.PAYMENT, 1, Events.PAYMENT_DECLINED, declined));
      return;
    }
    Sql.update(
        c,
        "INSERT INTO choreo_payment (order_id, amount_cents, status, version)"
            + " VALUES (?, ?, 'AUTHORIZED', 1)",
        f.orderId(),
        f.amountCents());
    move(c, f, "CHARGE", orderCreated);
    outbox.append(
        c, Events.reaction(orderCreated, Events.PAYMENT, 1, Events.PAYMENT_AUTHORIZED, f));
  }

  private void refund(Connection c, Event outOfStock) throws SQLException {
    Facts f = outOfStock.payloadAs(Facts.class);
    int refunded =
        Sql.update(
            c,
            "UPDATE choreo_payment SET status = 'REFUNDED', version = version + 1"
                + " WHERE order_id = ? AND status = 'AUTHORIZED'",
            f.orderId());
    if (refunded == 0) {
      LOG.warn("payment of order {} is not authorized; nothing to refund", f.orderId());
      return;
    }
    move(c, f, "REFUND", outOfStock);
    long version =
        Sql.number(c, "SELECT version FROM choreo_payment WHERE order_id = ?", f.orderId());
    outbox.append(
        c,
        Events.reaction(
            outOfStock,
            Events.PAYMENT,
            version,
            Events.PAYMENT_REFUNDED,
            f.because("out of stock")));
  }

  private static void move(Connection c, Facts f, String kind, Event cause) throws SQLException {
    Sql.update(
        c,
        "INSERT INTO choreo_payment_movement (movement_id, order_id, kind, amount_cents, event_id)"
            + " VALUES (?, ?, ?, ?, ?)",
        UUID.randomUUID().toString(),
        f.orderId(),
        kind,
        f.amountCents(),
        cause.eventId().toString());
  }

  /**
   * Net money taken per order (charges minus refunds), by order id; orders never charged absent.
   */
  Map<String, Long> netCharged() throws SQLException {
    Map<String, Long> net = new HashMap<>();
    for (String[] row :
        Sql.rows(
            dataSource,
            "SELECT order_id, SUM(CASE WHEN kind = 'CHARGE' THEN amount_cents ELSE -amount_cents"
                + " END) FROM choreo_payment_movement GROUP BY order_id")) {
      net.put(row[0], Long.parseLong(row[1]));
    }
    return net;
  }

  /** Orders charged, or refunded, more than once. */
  long doubleMovements() throws SQLException {
    return Sql.number(
        dataSource,
        "SELECT count(*) FROM (SELECT order_id, kind FROM choreo_payment_movement"
            + " GROUP BY order_id, kind HAVING count(*) > 1) doubled");
  }
}
