package io.tandem.examples.choreography;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.Event;
import io.tandem.inbox.InboxProcessor;
import io.tandem.outbox.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The inventory service: {@code PaymentAuthorized} → reserves the units ({@code
 * InventoryReserved}), or reports {@code OutOfStock} when the product has too few (the sold-out
 * product has none). The reservation is the point of no return of the checkout: after it, only
 * shipping remains, and shipping is retried until it succeeds.
 *
 * <p>Stock moves by one conditional, commutative update ({@code available = available - n, reserved
 * = reserved + n WHERE available >= n}), never by read-modify-write, so concurrent reservations
 * cannot oversell.
 */
final class InventoryService {
  static final String NAME = "inventory";

  private final DataSource dataSource;
  private final Outbox outbox = Outbox.create();

  InventoryService(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  void createSchema() throws SQLException {
    Sql.execute(
        dataSource,
        """
        CREATE TABLE choreo_stock (
            product       varchar(100) NOT NULL PRIMARY KEY,
            initial_units bigint       NOT NULL,
            available     bigint       NOT NULL,
            reserved      bigint       NOT NULL)
        """,
        """
        CREATE TABLE choreo_reservation (
            order_id varchar(100) NOT NULL PRIMARY KEY,
            product  varchar(100) NOT NULL,
            quantity integer      NOT NULL)
        """);
    try (Connection c = dataSource.getConnection()) {
      for (String product : OrderRequest.PRODUCTS) {
        stock(c, product, OrderRequest.INITIAL_STOCK);
      }
      stock(c, OrderRequest.SOLD_OUT_PRODUCT, 0);
    }
  }

  private static void stock(Connection c, String product, long units) throws SQLException {
    Sql.update(
        c,
        "INSERT INTO choreo_stock (product, initial_units, available, reserved) VALUES (?, ?, ?, 0)",
        product,
        units,
        units);
  }

  /** A new processor of the service's inbox (consumer {@value #NAME}). */
  InboxProcessor processor(MeterRegistry meters) {
    return InboxProcessor.builder()
        .dataSource(dataSource)
        .consumer(NAME)
        .meterRegistry(meters)
        .on(Events.PAYMENT_AUTHORIZED, this::reserve)
        .build();
  }

  private void reserve(Connection c, Event paymentAuthorized) throws SQLException {
    Facts f = paymentAuthorized.payloadAs(Facts.class);
    int reserved =
        Sql.update(
            c,
            "UPDATE choreo_stock SET available = available - ?, reserved = reserved + ?"
                + " WHERE product = ? AND available >= ?",
            f.quantity(),
            f.quantity(),
            f.product(),
            f.quantity());
    if (reserved == 0) {
      outbox.append(
          c,
          Events.reaction(
              paymentAuthorized,
              Events.RESERVATION,
              1,
              Events.OUT_OF_STOCK,
              f.because(f.product() + " is out of stock")));
      return;
    }
    Sql.update(
        c,
        "INSERT INTO choreo_reservation (order_id, product, quantity) VALUES (?, ?, ?)",
        f.orderId(),
        f.product(),
        f.quantity());
    outbox.append(
        c, Events.reaction(paymentAuthorized, Events.RESERVATION, 1, Events.INVENTORY_RESERVED, f));
  }

  /** Products whose available and reserved units do not add up to their initial units. */
  long unbalancedProducts() throws SQLException {
    return Sql.number(
        dataSource,
        "SELECT count(*) FROM choreo_stock WHERE available + reserved <> initial_units"
            + " OR available < 0");
  }

  /** Units reserved per product, from the stock rows. */
  Map<String, Long> reservedUnits() throws SQLException {
    Map<String, Long> reserved = new HashMap<>();
    for (String[] row : Sql.rows(dataSource, "SELECT product, reserved FROM choreo_stock")) {
      reserved.put(row[0], Long.parseLong(row[1]));
    }
    return reserved;
  }
}
