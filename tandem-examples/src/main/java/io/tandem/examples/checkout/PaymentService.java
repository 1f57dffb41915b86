package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.saga.SagaCommand;
import io.tandem.saga.SagaParticipant;
import io.tandem.saga.StepResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The payment service (MariaDB when one is available, else PostgreSQL; its own database; the SQL is
 * portable). Its part in the checkout saga:
 *
 * <ul>
 *   <li>{@code AuthorizePayment} charges the card, or declines it when the card number ends in
 *       {@value #DECLINED_CARD_SUFFIX} (a deterministic rule, so the demo controls its failure
 *       mix);
 *   <li>{@code RefundPayment} (compensation) refunds the charge.
 * </ul>
 *
 * <p>Money moves only as immutable rows of {@code checkout_payment_movement} (one {@code CHARGE},
 * at most one {@code REFUND}), and the customer's running total changes by commutative increments
 * ({@code charged_cents = charged_cents + ?}), never by read-modify-write. Before refunding, the
 * service re-reads the payment and moves it from {@code AUTHORIZED} to {@code REFUNDED} only at the
 * version it read (optimistic concurrency): a concurrent change makes the refund roll back and run
 * again on fresh data.
 */
public final class PaymentService {
  /** Cards whose number ends with this are declined (as the issuers' test card 4000…0002 is). */
  public static final String DECLINED_CARD_SUFFIX = "0002";

  private final DataSource dataSource;
  private final SagaParticipant participant;

  public PaymentService(DataSource dataSource) {
    this(dataSource, new SimpleMeterRegistry());
  }

  /** As the constructor without meters; its participant counts into {@code meters}. */
  public PaymentService(DataSource dataSource, MeterRegistry meters) {
    this.dataSource = dataSource;
    this.participant =
        SagaParticipant.builder()
            .dataSource(dataSource)
            .meterRegistry(meters)
            .name(CheckoutSaga.PAYMENT)
            .command("AuthorizePayment", this::authorize)
            .compensation("RefundPayment", this::refund)
            .build();
  }

  /** The saga participant; run its processor on the payment topic. */
  public SagaParticipant participant() {
    return participant;
  }

  /** Creates the business tables (portable SQL: PostgreSQL and MariaDB). */
  public void createSchema() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS checkout_payment (
              payment_id   varchar(36)  NOT NULL PRIMARY KEY,
              saga_id      varchar(36)  NOT NULL,
              order_id     varchar(100) NOT NULL,
              customer     varchar(100) NOT NULL,
              amount_cents bigint       NOT NULL,
              state        varchar(16)  NOT NULL,
              version      bigint       NOT NULL)
          """);
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS checkout_payment_movement (
              movement_id  varchar(36)  NOT NULL PRIMARY KEY,
              payment_id   varchar(36)  NOT NULL,
              saga_id      varchar(36)  NOT NULL,
              order_id     varchar(100) NOT NULL,
              kind         varchar(8)   NOT NULL,
              amount_cents bigint       NOT NULL)
          """);
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS checkout_account (
              customer      varchar(100) NOT NULL PRIMARY KEY,
              charged_cents bigint       NOT NULL)
          """);
    }
  }

  private StepResult authorize(Connection c, SagaCommand cmd) throws SQLException {
    Checkout checkout = cmd.dataAs(Checkout.class);
    if (checkout.card().endsWith(DECLINED_CARD_SUFFIX)) {
      return StepResult.failure("card declined for order " + checkout.orderId());
    }
    String paymentId = UUID.randomUUID().toString();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO checkout_payment
                (payment_id, saga_id, order_id, customer, amount_cents, state, version)
            VALUES (?, ?, ?, ?, ?, 'AUTHORIZED', 1)
            """)) {
      ps.setString(1, paymentId);
      ps.setString(2, cmd.sagaId().toString());
      ps.setString(3, checkout.orderId());
      ps.setString(4, checkout.customer());
      ps.setLong(5, checkout.amountCents());
      ps.executeUpdate();
    }
    move(c, paymentId, cmd.sagaId(), checkout.orderId(), "CHARGE", checkout.amountCents());
    addToAccount(c, checkout.customer(), checkout.amountCents());
    return StepResult.success(Map.of("paymentId", paymentId));
  }

  private StepResult refund(Connection c, SagaCommand cmd) throws SQLException {
    String paymentId;
    String orderId;
    String customer;
    long amount;
    String state;
    long version;
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT payment_id, order_id, customer, amount_cents, state, version
            FROM checkout_payment WHERE saga_id = ?
            """)) {
      ps.setString(1, cmd.sagaId().toString());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return StepResult.success(); // nothing was charged
        }
        paymentId = rs.getString(1);
        orderId = rs.getString(2);
        customer = rs.getString(3);
        amount = rs.getLong(4);
        state = rs.getString(5);
        version = rs.getLong(6);
      }
    }
    if (state.equals("REFUNDED")) {
      return StepResult.success();
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            UPDATE checkout_payment SET state = 'REFUNDED', version = version + 1
            WHERE payment_id = ? AND state = 'AUTHORIZED' AND version = ?
            """)) {
      ps.setString(1, paymentId);
      ps.setLong(2, version);
      if (ps.executeUpdate() == 0) {
        // Rolled back and retried by the inbox processor, which re-reads the payment.
        throw new IllegalStateException(
            "payment " + paymentId + " changed since version " + version + " was read");
      }
    }
    move(c, paymentId, cmd.sagaId(), orderId, "REFUND", amount);
    addToAccount(c, customer, -amount);
    return StepResult.success();
  }

  private static void move(
      Connection c, String paymentId, UUID sagaId, String orderId, String kind, long amount)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO checkout_payment_movement
                (movement_id, payment_id, saga_id, order_id, kind, amount_cents)
            VALUES (?, ?, ?, ?, ?, ?)
            """)) {
      ps.setString(1, UUID.randomUUID().toString());
      ps.setString(2, paymentId);
      ps.setString(3, sagaId.toString());
      ps.setString(4, orderId);
      ps.setString(5, kind);
      ps.setLong(6, amount);
      ps.executeUpdate();
    }
  }

  /**
   * A commutative increment; the first charge of a customer creates the account row. Two first
   * charges of one customer may race to insert it: the loser's insert waits for the winner's commit
   * and fails on the key, so it is rolled back to a savepoint and becomes the update (no failed
   * delivery, no retry, nothing logged).
   */
  private static void addToAccount(Connection c, String customer, long delta) throws SQLException {
    if (incrementAccount(c, customer, delta)) {
      return;
    }
    Savepoint beforeInsert = c.setSavepoint();
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO checkout_account (customer, charged_cents) VALUES (?, ?)")) {
      ps.setString(1, customer);
      ps.setLong(2, delta);
      ps.executeUpdate();
    } catch (SQLException e) {
      if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
        throw e;
      }
      c.rollback(beforeInsert);
      if (!incrementAccount(c, customer, delta)) {
        throw e;
      }
    }
  }

  private static boolean incrementAccount(Connection c, String customer, long delta)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE checkout_account SET charged_cents = charged_cents + ? WHERE customer = ?")) {
      ps.setLong(1, delta);
      ps.setString(2, customer);
      return ps.executeUpdate() == 1;
    }
  }

  /** Net money taken, in cents: charges minus refunds. */
  public long netChargedCents() throws SQLException {
    return Queries.single(
        dataSource,
        "SELECT COALESCE(SUM(CASE WHEN kind = 'CHARGE' THEN amount_cents ELSE -amount_cents END),"
            + " 0) FROM checkout_payment_movement");
  }
}
