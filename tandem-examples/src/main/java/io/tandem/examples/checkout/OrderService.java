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
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The order service (PostgreSQL, its own database). Its part in the checkout saga:
 *
 * <ul>
 *   <li>{@code CreatePendingOrder} inserts the order as {@code PENDING}, owned by the saga. That
 *       status is a <em>semantic lock</em>: while it holds, a second checkout of the same order is
 *       refused (the second saga fails at its first step and ends compensated, touching nothing),
 *       and so is {@link #changeAddress}.
 *   <li>{@code CancelOrder} (compensation) moves the saga's own {@code PENDING} order to {@code
 *       CANCELLED}.
 *   <li>{@code ApproveOrder} (the last, retriable step) moves it to {@code CONFIRMED}: the lock
 *       ends with the saga.
 * </ul>
 *
 * Every change checks the status it expects and increments the version.
 */
public final class OrderService {
  private final DataSource dataSource;
  private final SagaParticipant participant;

  public OrderService(DataSource dataSource) {
    this(dataSource, new SimpleMeterRegistry());
  }

  /** As the constructor without meters; its participant counts into {@code meters}. */
  public OrderService(DataSource dataSource, MeterRegistry meters) {
    this.dataSource = dataSource;
    this.participant =
        SagaParticipant.builder()
            .dataSource(dataSource)
            .meterRegistry(meters)
            .name(CheckoutSaga.ORDER)
            .command("CreatePendingOrder", this::createPendingOrder)
            .compensation("CancelOrder", this::cancelOrder)
            .command("ApproveOrder", this::approveOrder)
            .build();
  }

  /** The saga participant; run its processor on the order topic. */
  public SagaParticipant participant() {
    return participant;
  }

  /** Creates the business table (the Tandem tables come from {@code Migrations}). */
  public void createSchema() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS checkout_order (
              order_id     text        PRIMARY KEY,
              saga_id      uuid        NOT NULL,
              customer     text        NOT NULL,
              sku          text        NOT NULL,
              quantity     integer     NOT NULL,
              amount_cents bigint      NOT NULL,
              address      text        NOT NULL,
              status       text        NOT NULL
                  CHECK (status IN ('PENDING', 'CONFIRMED', 'CANCELLED')),
              version      bigint      NOT NULL,
              updated_at   timestamptz NOT NULL DEFAULT now())
          """);
    }
  }

  private StepResult createPendingOrder(Connection c, SagaCommand cmd) throws SQLException {
    Checkout checkout = cmd.dataAs(Checkout.class);
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO checkout_order
                (order_id, saga_id, customer, sku, quantity, amount_cents, address, status, version)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'PENDING', 1)
            ON CONFLICT (order_id) DO NOTHING
            """)) {
      ps.setString(1, checkout.orderId());
      ps.setObject(2, cmd.sagaId());
      ps.setString(3, checkout.customer());
      ps.setString(4, checkout.sku());
      ps.setInt(5, checkout.quantity());
      ps.setLong(6, checkout.amountCents());
      ps.setString(7, checkout.address());
      if (ps.executeUpdate() == 1) {
        return StepResult.success();
      }
    }
    Order existing = find(c, checkout.orderId()).orElseThrow();
    if (existing.status().equals(Order.PENDING)) {
      return StepResult.failure(
          "order "
              + checkout.orderId()
              + " is PENDING in checkout "
              + existing.sagaId()
              + ": refused by its semantic lock");
    }
    return StepResult.failure(
        "order " + checkout.orderId() + " was checked out before (" + existing.status() + ")");
  }

  private StepResult cancelOrder(Connection c, SagaCommand cmd) throws SQLException {
    return move(c, cmd, Order.CANCELLED);
  }

  private StepResult approveOrder(Connection c, SagaCommand cmd) throws SQLException {
    return move(c, cmd, Order.CONFIRMED);
  }

  /** PENDING to {@code target}, only for the order this saga holds. */
  private StepResult move(Connection c, SagaCommand cmd, String target) throws SQLException {
    String orderId = cmd.dataAs(Checkout.class).orderId();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            UPDATE checkout_order SET status = ?, version = version + 1, updated_at = now()
            WHERE order_id = ? AND saga_id = ? AND status = 'PENDING'
            """)) {
      ps.setString(1, target);
      ps.setString(2, orderId);
      ps.setObject(3, cmd.sagaId());
      if (ps.executeUpdate() == 1) {
        return StepResult.success();
      }
    }
    Optional<Order> now = find(c, orderId);
    if (now.isPresent()
        && now.get().sagaId().equals(cmd.sagaId())
        && now.get().status().equals(target)) {
      return StepResult.success(); // done before
    }
    return StepResult.failure(
        "order " + orderId + " of saga " + cmd.sagaId() + " is not PENDING: " + now);
  }

  /**
   * A customer changes the shipping address of an order: refused while a checkout holds it ({@link
   * OrderLockedException}), and when the order changed since {@code expectedVersion} was read.
   *
   * @return the new version
   * @throws OrderLockedException while the order is {@code PENDING}
   * @throws IllegalStateException when the order is cancelled, unknown, or at another version
   */
  public long changeAddress(String orderId, long expectedVersion, String address)
      throws SQLException {
    return Transactions.inTransaction(
        dataSource,
        c -> {
          Order order =
              find(c, orderId).orElseThrow(() -> new IllegalStateException("no order " + orderId));
          if (order.status().equals(Order.PENDING)) {
            throw new OrderLockedException(
                "order "
                    + orderId
                    + " is PENDING in checkout "
                    + order.sagaId()
                    + "; change it once the checkout has ended");
          }
          if (order.status().equals(Order.CANCELLED)) {
            throw new IllegalStateException("order " + orderId + " is cancelled");
          }
          try (PreparedStatement ps =
              c.prepareStatement(
                  """
                  UPDATE checkout_order SET address = ?, version = version + 1, updated_at = now()
                  WHERE order_id = ? AND status = 'CONFIRMED' AND version = ?
                  """)) {
            ps.setString(1, address);
            ps.setString(2, orderId);
            ps.setLong(3, expectedVersion);
            if (ps.executeUpdate() == 0) {
              throw new IllegalStateException(
                  "order "
                      + orderId
                      + " is at version "
                      + order.version()
                      + ", not "
                      + expectedVersion
                      + ": read it again");
            }
          }
          return expectedVersion + 1;
        });
  }

  /** The order, if it exists. */
  public Optional<Order> find(String orderId) throws SQLException {
    return Transactions.inTransaction(dataSource, c -> find(c, orderId));
  }

  /** Orders per status. */
  public Map<String, Long> countByStatus() throws SQLException {
    return Queries.countBy(
        dataSource, "SELECT status, count(*) FROM checkout_order GROUP BY status");
  }

  private static Optional<Order> find(Connection c, String orderId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT order_id, saga_id, customer, sku, quantity, amount_cents, address, status,
                   version
            FROM checkout_order WHERE order_id = ?
            """)) {
      ps.setString(1, orderId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  static Order read(ResultSet rs) throws SQLException {
    return new Order(
        rs.getString("order_id"),
        rs.getObject("saga_id", UUID.class),
        rs.getString("customer"),
        rs.getString("sku"),
        rs.getInt("quantity"),
        rs.getLong("amount_cents"),
        rs.getString("address"),
        rs.getString("status"),
        rs.getLong("version"));
  }
}
