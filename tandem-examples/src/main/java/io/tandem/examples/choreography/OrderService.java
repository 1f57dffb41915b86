package io.tandem.examples.choreography;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.Event;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The order service: takes orders and closes them on what the others report.
 *
 * <ul>
 *   <li>{@link #place}: the order row ({@code PENDING}) and {@code OrderCreated}, with a new
 *       correlation id, in one transaction;
 *   <li>{@code ShipmentRequested} → {@code CONFIRMED}, {@code OrderConfirmed};
 *   <li>{@code PaymentDeclined} or {@code PaymentRefunded} → {@code CANCELLED}, {@code
 *       OrderCancelled}.
 * </ul>
 *
 * <p>{@code PENDING} is a semantic lock: an order leaves it once, by a conditional update, so a
 * late or repeated report cannot move a closed order.
 */
final class OrderService {
  static final String NAME = "order";
  private static final Logger LOG = LoggerFactory.getLogger(OrderService.class);

  private final DataSource dataSource;
  private final Outbox outbox = Outbox.create();

  OrderService(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  void createSchema() throws SQLException {
    Sql.execute(
        dataSource,
        """
        CREATE TABLE choreo_order (
            order_id       varchar(100) NOT NULL PRIMARY KEY,
            correlation_id varchar(200) NOT NULL,
            customer       varchar(100) NOT NULL,
            product        varchar(100) NOT NULL,
            quantity       integer      NOT NULL,
            amount_cents   bigint       NOT NULL,
            status         varchar(16)  NOT NULL,
            outcome        varchar(16)  NOT NULL,
            version        bigint       NOT NULL)
        """);
  }

  /** Accepts an order: the row and its {@code OrderCreated} commit together. */
  PlacedOrder place(String orderId, String correlationId, OrderRequest r) throws SQLException {
    Transactions.inTransaction(
        dataSource,
        c -> {
          Sql.update(
              c,
              "INSERT INTO choreo_order (order_id, correlation_id, customer, product, quantity,"
                  + " amount_cents, status, outcome, version) VALUES (?, ?, ?, ?, ?, ?, 'PENDING',"
                  + " 'PENDING', 1)",
              orderId,
              correlationId,
              r.customer(),
              r.product(),
              r.quantity(),
              r.amountCents());
          outbox.append(
              c,
              Events.first(
                  Events.ORDER, Events.ORDER_CREATED, Facts.of(orderId, r), correlationId));
          return null;
        });
    return new PlacedOrder(orderId, correlationId, r);
  }

  /** A new processor of the service's inbox (consumer {@value #NAME}). */
  InboxProcessor processor(MeterRegistry meters) {
    return InboxProcessor.builder()
        .dataSource(dataSource)
        .consumer(NAME)
        .meterRegistry(meters)
        .on(
            Events.SHIPMENT_REQUESTED,
            (c, e) -> close(c, e, "CONFIRMED", CheckoutOutcome.CONFIRMED, Events.ORDER_CONFIRMED))
        .on(
            Events.PAYMENT_DECLINED,
            (c, e) -> close(c, e, "CANCELLED", CheckoutOutcome.DECLINED, Events.ORDER_CANCELLED))
        .on(
            Events.PAYMENT_REFUNDED,
            (c, e) ->
                close(c, e, "CANCELLED", CheckoutOutcome.OUT_OF_STOCK, Events.ORDER_CANCELLED))
        .build();
  }

  private void close(
      Connection c, Event cause, String status, CheckoutOutcome outcome, String eventType)
      throws SQLException {
    Facts facts = cause.payloadAs(Facts.class);
    int moved =
        Sql.update(
            c,
            "UPDATE choreo_order SET status = ?, outcome = ?, version = version + 1"
                + " WHERE order_id = ? AND status = 'PENDING'",
            status,
            outcome.name(),
            facts.orderId());
    if (moved == 0) {
      LOG.warn("order {} is not pending; {} changes nothing", facts.orderId(), cause.eventType());
      return;
    }
    long version =
        Sql.number(c, "SELECT version FROM choreo_order WHERE order_id = ?", facts.orderId());
    Facts closed = outcome == CheckoutOutcome.CONFIRMED ? facts : facts.because(outcome.name());
    outbox.append(c, Events.reaction(cause, Events.ORDER, version, eventType, closed));
  }

  /** Every order's outcome, by order id. */
  Map<String, CheckoutOutcome> outcomes() throws SQLException {
    Map<String, CheckoutOutcome> outcomes = new HashMap<>();
    for (String[] row : Sql.rows(dataSource, "SELECT order_id, outcome FROM choreo_order")) {
      outcomes.put(row[0], CheckoutOutcome.valueOf(row[1]));
    }
    return outcomes;
  }

  /** Amount and quantity of every confirmed order: order id → {amount, product, quantity}. */
  Map<String, String[]> confirmed() throws SQLException {
    Map<String, String[]> confirmed = new HashMap<>();
    for (String[] row :
        Sql.rows(
            dataSource,
            "SELECT order_id, amount_cents, product, quantity FROM choreo_order"
                + " WHERE status = 'CONFIRMED'")) {
      confirmed.put(row[0], new String[] {row[1], row[2], row[3]});
    }
    return confirmed;
  }

  long pending() throws SQLException {
    return Sql.number(dataSource, "SELECT count(*) FROM choreo_order WHERE status = 'PENDING'");
  }
}
