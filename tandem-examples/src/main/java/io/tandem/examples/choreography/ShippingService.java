package io.tandem.examples.choreography;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.RetryPolicy;
import io.tandem.inbox.InboxProcessor;
import io.tandem.outbox.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The shipping service: {@code InventoryReserved} → hands the parcel to the carrier and reports
 * {@code ShipmentRequested}. The step after the point of no return, so it is retried until it
 * succeeds: the simulated carrier fails transiently as often as the order's {@code
 * shippingFailures} says, the handler throws, the transaction rolls back, and the consumer retries
 * the event in place with backoff ({@link #RETRY_POLICY}).
 *
 * <p>The carrier's memory of attempts is in this process (a real carrier is outside the database
 * transaction too); after a restart it fails the same number of times again.
 */
final class ShippingService {
  static final String NAME = "shipping";

  /** More attempts than an order may ask to fail, short backoff. */
  static final RetryPolicy RETRY_POLICY =
      RetryPolicy.builder()
          .base(Duration.ofMillis(20))
          .cap(Duration.ofMillis(200))
          .maxAttempts(OrderRequest.MAX_SHIPPING_FAILURES + 3)
          .build();

  /** The carrier refused the parcel for now; the consumer retries. */
  static final class CarrierUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CarrierUnavailableException(String message) {
      super(message);
    }
  }

  private final DataSource dataSource;
  private final Outbox outbox = Outbox.create();
  private final Map<String, AtomicInteger> carrierAttempts = new ConcurrentHashMap<>();

  ShippingService(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  void createSchema() throws SQLException {
    Sql.execute(
        dataSource,
        """
        CREATE TABLE choreo_shipment (
            order_id         varchar(100) NOT NULL PRIMARY KEY,
            product          varchar(100) NOT NULL,
            quantity         integer      NOT NULL,
            carrier_attempts integer      NOT NULL)
        """);
  }

  /** A new processor of the service's inbox (consumer {@value #NAME}). */
  InboxProcessor processor(MeterRegistry meters) {
    return InboxProcessor.builder()
        .dataSource(dataSource)
        .consumer(NAME)
        .meterRegistry(meters)
        .retryPolicy(RETRY_POLICY)
        .on(Events.INVENTORY_RESERVED, this::ship)
        .build();
  }

  private void ship(Connection c, Event inventoryReserved) throws SQLException {
    Facts f = inventoryReserved.payloadAs(Facts.class);
    int attempt =
        carrierAttempts.computeIfAbsent(f.orderId(), id -> new AtomicInteger()).incrementAndGet();
    if (attempt <= f.shippingFailures()) {
      throw new CarrierUnavailableException(
          "carrier unavailable for order " + f.orderId() + " (attempt " + attempt + ")");
    }
    Sql.update(
        c,
        "INSERT INTO choreo_shipment (order_id, product, quantity, carrier_attempts)"
            + " VALUES (?, ?, ?, ?)",
        f.orderId(),
        f.product(),
        f.quantity(),
        attempt);
    outbox.append(
        c, Events.reaction(inventoryReserved, Events.SHIPMENT, 1, Events.SHIPMENT_REQUESTED, f));
  }

  /** How many carrier attempts the shipment of an order took; 0 when it has none. */
  int carrierAttempts(String orderId) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return (int)
          Sql.number(c, "SELECT carrier_attempts FROM choreo_shipment WHERE order_id = ?", orderId);
    }
  }

  long shipments() throws SQLException {
    return Sql.number(dataSource, "SELECT count(*) FROM choreo_shipment");
  }
}
