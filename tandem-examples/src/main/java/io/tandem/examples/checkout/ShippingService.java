package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.saga.SagaCommand;
import io.tandem.saga.SagaParticipant;
import io.tandem.saga.StepResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The shipping service (PostgreSQL, its own database). Its {@code RequestShipping} books a carrier:
 * the irreversible step, hence placed after the pivot, and <em>retriable</em>: the carrier may be
 * unavailable for a moment, and the request is tried again until it succeeds.
 *
 * <p>A transient carrier failure ({@link CarrierUnavailableException}) is answered with a failure
 * reply: the orchestrator sends the command again after a backoff, as a new attempt, and the
 * participant runs it again (its record of the step says the last attempt failed); the saga's step
 * log shows each attempt. Only the attempt that succeeds writes a shipment.
 */
public final class ShippingService {
  private final DataSource dataSource;
  private final Carrier carrier;
  private final SagaParticipant participant;
  private final AtomicLong carrierFailures = new AtomicLong();

  /** The carrier's booking API, as the shipping service sees it. */
  @FunctionalInterface
  public interface Carrier {
    /**
     * Books a parcel.
     *
     * @throws CarrierUnavailableException when the carrier cannot answer now
     */
    void book(String orderId, String address);

    /** A carrier that is unavailable for a random {@code failureRate} share of the calls. */
    static Carrier flaky(double failureRate) {
      if (failureRate < 0 || failureRate >= 1) {
        throw new IllegalArgumentException(
            "failureRate must be at least 0 and below 1, was " + failureRate);
      }
      return (orderId, address) -> {
        if (ThreadLocalRandom.current().nextDouble() < failureRate) {
          throw new CarrierUnavailableException("carrier unavailable for order " + orderId);
        }
      };
    }
  }

  /** The carrier could not take the booking now; the booking is tried again later. */
  public static final class CarrierUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CarrierUnavailableException(String message) {
      super(message);
    }
  }

  public ShippingService(DataSource dataSource, Carrier carrier) {
    this(dataSource, carrier, new SimpleMeterRegistry());
  }

  /** As the constructor without meters; its participant counts into {@code meters}. */
  public ShippingService(DataSource dataSource, Carrier carrier, MeterRegistry meters) {
    this.dataSource = dataSource;
    this.carrier = carrier;
    this.participant =
        SagaParticipant.builder()
            .dataSource(dataSource)
            .meterRegistry(meters)
            .name(CheckoutSaga.SHIPPING)
            .command("RequestShipping", this::requestShipping)
            .build();
  }

  /** The saga participant; run its processor on the shipping topic. */
  public SagaParticipant participant() {
    return participant;
  }

  public void createSchema() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE IF NOT EXISTS checkout_shipment (
              shipment_id uuid        PRIMARY KEY,
              saga_id     uuid        NOT NULL,
              order_id    text        NOT NULL,
              address     text        NOT NULL,
              created_at  timestamptz NOT NULL DEFAULT now())
          """);
    }
  }

  private StepResult requestShipping(Connection c, SagaCommand cmd) throws SQLException {
    Checkout checkout = cmd.dataAs(Checkout.class);
    try {
      carrier.book(checkout.orderId(), checkout.address());
    } catch (CarrierUnavailableException e) {
      carrierFailures.incrementAndGet();
      return StepResult.failure(e.getMessage());
    }
    UUID shipmentId = UUID.randomUUID();
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO checkout_shipment (shipment_id, saga_id, order_id, address)"
                + " VALUES (?, ?, ?, ?)")) {
      ps.setObject(1, shipmentId);
      ps.setObject(2, cmd.sagaId());
      ps.setString(3, checkout.orderId());
      ps.setString(4, checkout.address());
      ps.executeUpdate();
    }
    return StepResult.success(Map.of("shipmentId", shipmentId.toString()));
  }

  /** Carrier calls that failed transiently (and were retried). */
  public long carrierFailures() {
    return carrierFailures.get();
  }
}
