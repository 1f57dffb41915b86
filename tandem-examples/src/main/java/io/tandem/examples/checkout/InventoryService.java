package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.jdbc.Transactions;
import io.tandem.saga.SagaCommand;
import io.tandem.saga.SagaParticipant;
import io.tandem.saga.StepResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The inventory service (PostgreSQL, its own database). Its {@code ReserveInventory} is the pivot
 * of the checkout saga: once stock is reserved the checkout will complete; when there is not
 * enough, the saga refunds the payment and cancels the order.
 *
 * <p>Stock changes by one commutative, guarded statement — {@code stock = stock - qty WHERE stock
 * >= qty} — so concurrent checkouts of the same product never oversell and never lose an update,
 * without reading the stock first. Each reservation is a row; {@code initial_stock - reserved =
 * stock} holds at all times.
 */
public final class InventoryService {
  private final DataSource dataSource;
  private final SagaParticipant participant;

  public InventoryService(DataSource dataSource) {
    this(dataSource, new SimpleMeterRegistry());
  }

  /** As the constructor without meters; its participant counts into {@code meters}. */
  public InventoryService(DataSource dataSource, MeterRegistry meters) {
    this.dataSource = dataSource;
    this.participant =
        SagaParticipant.builder()
            .dataSource(dataSource)
            .meterRegistry(meters)
            .name(CheckoutSaga.INVENTORY)
            .command("ReserveInventory", this::reserve)
            .build();
  }

  /** The saga participant; run its processor on the inventory topic. */
  public SagaParticipant participant() {
    return participant;
  }

  public void createSchema() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS checkout_product (
              sku           text    PRIMARY KEY,
              initial_stock integer NOT NULL,
              stock         integer NOT NULL CHECK (stock >= 0))
          """);
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS checkout_reservation (
              reservation_id uuid        PRIMARY KEY,
              saga_id        uuid        NOT NULL,
              order_id       text        NOT NULL,
              sku            text        NOT NULL,
              quantity       integer     NOT NULL,
              created_at     timestamptz NOT NULL DEFAULT now())
          """);
    }
  }

  /** Adds a product with {@code stock} units. */
  public void addProduct(String sku, int stock) throws SQLException {
    if (stock < 0) {
      throw new IllegalArgumentException("stock must not be negative, was " + stock);
    }
    Transactions.inTransaction(
        dataSource,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO checkout_product (sku, initial_stock, stock) VALUES (?, ?, ?)")) {
            ps.setString(1, sku);
            ps.setInt(2, stock);
            ps.setInt(3, stock);
            ps.executeUpdate();
          }
          return null;
        });
  }

  private StepResult reserve(Connection c, SagaCommand cmd) throws SQLException {
    Checkout checkout = cmd.dataAs(Checkout.class);
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE checkout_product SET stock = stock - ? WHERE sku = ? AND stock >= ?")) {
      ps.setInt(1, checkout.quantity());
      ps.setString(2, checkout.sku());
      ps.setInt(3, checkout.quantity());
      if (ps.executeUpdate() == 0) {
        return StepResult.failure(
            "out of stock: "
                + checkout.quantity()
                + " x "
                + checkout.sku()
                + " for order "
                + checkout.orderId());
      }
    }
    UUID reservationId = UUID.randomUUID();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO checkout_reservation (reservation_id, saga_id, order_id, sku, quantity)
            VALUES (?, ?, ?, ?, ?)
            """)) {
      ps.setObject(1, reservationId);
      ps.setObject(2, cmd.sagaId());
      ps.setString(3, checkout.orderId());
      ps.setString(4, checkout.sku());
      ps.setInt(5, checkout.quantity());
      ps.executeUpdate();
    }
    return StepResult.success(Map.of("reservationId", reservationId.toString()));
  }

  /** The current stock of {@code sku}; -1 when unknown. */
  public int stock(String sku) throws SQLException {
    return Transactions.inTransaction(
        dataSource,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("SELECT stock FROM checkout_product WHERE sku = ?")) {
            ps.setString(1, sku);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getInt(1) : -1;
            }
          }
        });
  }
}
