package io.tandem.inbox;

import io.tandem.inbox.internal.ParkingStore;
import io.tandem.inbox.internal.ParkingStore.ParkedEvent;
import io.tandem.inbox.internal.PositionStore;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies parked events whose predecessor is applied: an aggregate's successors in version order,
 * each in its own transaction, until the next one is missing or held by a dead letter. Thread-safe.
 */
final class ParkedDrainer {
  private static final Logger LOG = LoggerFactory.getLogger(ParkedDrainer.class);

  private final String consumer;
  private final Attempts attempts;
  private final PositionStore positions;
  private final ParkingStore parking;
  private final SingleMessage single;

  ParkedDrainer(ConsumerParts parts, SingleMessage single) {
    this.consumer = parts.consumer();
    this.attempts = parts.attempts();
    this.positions = new PositionStore(parts.dialect());
    this.parking = new ParkingStore(parts.dialect());
    this.single = single;
  }

  /** Applies the parked successors of one aggregate, in order. */
  void drain(String type, String id, BooleanSupplier stopping) {
    while (!stopping.getAsBoolean()) {
      Optional<ParkedEvent> next;
      try {
        next =
            attempts.tx(
                conn -> {
                  long last = positions.lockPosition(conn, consumer, type, id, 0);
                  parking.deleteParked(conn, consumer, type, id, last);
                  return parking.findParked(conn, consumer, type, id, last + 1);
                });
      } catch (SQLException | RuntimeException e) {
        LOG.warn("consumer {}: could not read parked events of {}/{}", consumer, type, id, e);
        return; // they stay parked; the next applied event of the aggregate or the sweep goes on
      }
      if (next.isEmpty()) {
        return;
      }
      ParkedEvent parked = next.get();
      Decoded d = new Decoded(new ParkedMessage(parked), parked.event(), null);
      Outcome outcome = single.apply(d, stopping, 0).outcome();
      if (outcome != Outcome.APPLIED && outcome != Outcome.SKIPPED) {
        return; // a dead letter now holds the aggregate, or we are stopping
      }
    }
  }

  /**
   * Drains every aggregate whose next version is parked (left behind by a consumer that stopped
   * between applying an event and its successors); returns how many it looked at.
   */
  int drainReady(BooleanSupplier stopping) {
    List<String[]> ready;
    try {
      ready = attempts.tx(conn -> parking.readyAggregates(conn, consumer, 1000));
    } catch (SQLException e) {
      throw new io.tandem.jdbc.JdbcException(
          "consumer " + consumer + ": reading the parked events failed", e);
    }
    for (String[] aggregate : ready) {
      drain(aggregate[0], aggregate[1], stopping);
    }
    return ready.size();
  }
}
