package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.inbox.internal.ParkingStore;
import io.tandem.inbox.internal.PositionStore;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-aggregate ordering guard: decides, under the aggregate's locked position, what an event's
 * version means — the next one (apply it), one seen before (duplicate), one another event took
 * (version conflict), or one beyond a gap (park it) — and returns that {@link Decision}. It writes
 * only what the decision needs under the same lock (the moved position with the inbox record on the
 * fast path, the parked row); the caller runs the handler. Thread-safe.
 */
final class OrderingGuard {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingGuard.class);

  /** What an event's version means for its aggregate. */
  enum Verdict {
    /** The next version: the position moved and the inbox record is in; run the handler. */
    RECORDED,
    /** The next version, position locked but not moved: record, run, then {@link #moveTo}. */
    NEXT,
    /** At or below the position, applied before (or before the start, or advanced over). */
    DUPLICATE,
    /** Beyond a gap: parked until its predecessor is applied. */
    PARKED,
    /** The event id was processed before under another version: roll back, nothing changes. */
    ALREADY_PROCESSED,
    /** At or below the position with an id never applied: another event took the version. */
    CONFLICT
  }

  /**
   * The guard's decision; {@code successorParked} says whether the next version waits in the
   * parking (read under the lock, so it is worth a drain), {@code conflict} explains a {@link
   * Verdict#CONFLICT}.
   */
  record Decision(Verdict verdict, boolean successorParked, Refused conflict) {
    static Decision of(Verdict verdict) {
      return new Decision(verdict, false, null);
    }
  }

  private final Dialect dialect;
  private final PositionStore positions;
  private final ParkingStore parking;
  private final String consumer;
  private final boolean startAtFirstSeen;

  OrderingGuard(Dialect dialect, String consumer, boolean startAtFirstSeen) {
    this.dialect = dialect;
    this.positions = new PositionStore(dialect);
    this.parking = new ParkingStore(dialect);
    this.consumer = consumer;
    this.startAtFirstSeen = startAtFirstSeen;
  }

  /** Decides what {@code event} is; parks it when it comes after a gap. */
  Decision admit(Connection conn, Event event, String origin) throws SQLException {
    // The common case: the position was one below; it moves (and stays locked) with the record.
    switch (positions.advanceAndRecord(conn, consumer, event)) {
      case RECORDED -> {
        boolean combined = dialect.positionAdvanceAndRecord().isPresent();
        return new Decision(Verdict.RECORDED, !combined && successorParked(conn, event), null);
      }
      case RECORDED_SUCCESSOR_PARKED -> {
        return new Decision(Verdict.RECORDED, true, null);
      }
      case ALREADY_PROCESSED -> {
        return Decision.of(Verdict.ALREADY_PROCESSED);
      }
      case NOT_NEXT -> {} // decided below on the locked position
    }
    long initial = startAtFirstSeen ? event.aggregateVersion() - 1 : 0;
    long last =
        positions.lockPosition(conn, consumer, event.aggregateType(), event.aggregateId(), initial);
    if (event.aggregateVersion() <= last) {
      return atOrBelow(conn, event, last);
    }
    if (event.aggregateVersion() > last + 1) {
      parking.park(conn, consumer, event, origin);
      return Decision.of(Verdict.PARKED);
    }
    return Decision.of(Verdict.NEXT);
  }

  /** After a {@link Verdict#NEXT} event's handler: moves the position; true when v+1 is parked. */
  boolean moveTo(Connection conn, Event event) throws SQLException {
    positions.updatePosition(conn, consumer, event);
    return successorParked(conn, event);
  }

  /**
   * An event at or below its aggregate's position is a duplicate only if its id was applied (or it
   * lies before the position's start, or an operator advanced over its version). An event id never
   * seen with a version already taken is another event claiming that version — two producers
   * writing one aggregate, a reset sequence — and dropping it as a duplicate would lose it
   * silently.
   */
  Decision atOrBelow(Connection conn, Event event, long last) throws SQLException {
    PositionStore.VersionProbe probe = positions.probe(conn, consumer, event);
    if (probe.seen() || event.aggregateVersion() <= probe.startVersion()) {
      return Decision.of(Verdict.DUPLICATE);
    }
    if (probe.advanceId().isPresent()) {
      LOG.info(
          "consumer {}: {}/{} version {} ({}) arrived after advance #{} moved past it; dropped",
          consumer,
          event.aggregateType(),
          event.aggregateId(),
          event.aggregateVersion(),
          event.eventId(),
          probe.advanceId().getAsLong());
      return Decision.of(Verdict.DUPLICATE);
    }
    return new Decision(Verdict.CONFLICT, false, conflict(event, last));
  }

  private static Refused conflict(Event event, long last) {
    return new Refused(
        DeadLetterReason.VERSION_CONFLICT,
        "version "
            + event.aggregateVersion()
            + " of "
            + event.aggregateType()
            + "/"
            + event.aggregateId()
            + " is at or below the consumer's position ("
            + last
            + "), but its event id "
            + event.eventId()
            + " was never applied: another event already took that version (two producers"
            + " writing one aggregate, or a reset version sequence). Nothing was applied; compare"
            + " the two events at the producer, then discard this dead letter or publish the"
            + " change again under a new version",
        null);
  }

  private boolean successorParked(Connection conn, Event event) throws SQLException {
    return parking
        .findParked(
            conn,
            consumer,
            event.aggregateType(),
            event.aggregateId(),
            event.aggregateVersion() + 1)
        .isPresent();
  }
}
