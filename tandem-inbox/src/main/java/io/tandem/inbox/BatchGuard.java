package io.tandem.inbox;

import io.tandem.inbox.OrderingGuard.Decision;
import io.tandem.inbox.OrderingGuard.Verdict;
import io.tandem.inbox.internal.AggregateKey;
import io.tandem.inbox.internal.BatchPositions;
import io.tandem.inbox.internal.ParkingStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ordering guard for a batch: the positions of its aggregates locked in key order (and created
 * where missing) in one round trip when all exist, then each aggregate's events taken in version
 * order and decided on the locked position as {@link OrderingGuard} decides one — a version at or
 * below it is a duplicate or a conflict (deferred to the dead letter), the next one is to be
 * applied, one beyond a gap is parked. Thread-safe.
 */
final class BatchGuard {
  private final String consumer;
  private final boolean startAtFirstSeen;
  private final OrderingGuard single;
  private final BatchPositions positions;
  private final ParkingStore parking;

  BatchGuard(ConsumerParts parts, OrderingGuard single) {
    this.consumer = parts.consumer();
    this.startAtFirstSeen = parts.startAtFirstSeen();
    this.single = single;
    this.positions = new BatchPositions(parts.dialect());
    this.parking = new ParkingStore(parts.dialect());
  }

  /** Decides each aggregate's events (first copies only); returns those to apply, in order. */
  List<BatchEntry> admit(Connection conn, Map<AggregateKey, List<BatchEntry>> byAggregate)
      throws SQLException {
    Map<AggregateKey, Long> initial = new HashMap<>();
    for (Map.Entry<AggregateKey, List<BatchEntry>> a : byAggregate.entrySet()) {
      a.getValue().sort(Comparator.comparingLong(e -> e.event.aggregateVersion()));
      long lowest = a.getValue().get(0).event.aggregateVersion();
      initial.put(a.getKey(), startAtFirstSeen ? lowest - 1 : 0);
    }
    Map<AggregateKey, Long> locked = positions.lockPositions(conn, consumer, initial);
    List<BatchEntry> toApply = new ArrayList<>();
    for (Map.Entry<AggregateKey, List<BatchEntry>> a : byAggregate.entrySet()) {
      long position = locked.get(a.getKey());
      long next = position;
      for (BatchEntry e : a.getValue()) {
        long v = e.event.aggregateVersion();
        if (v <= position) {
          Decision d = single.atOrBelow(conn, e.event, position);
          if (d.verdict() == Verdict.CONFLICT) {
            e.refuse(d.conflict());
          } else {
            e.outcome = Outcome.DUPLICATE;
          }
        } else if (v == next + 1) {
          toApply.add(e);
          next = v;
        } else if (v <= next) {
          e.defer(); // another event id with a version planned here: the single path decides
        } else {
          parking.park(conn, consumer, e.event, e.decoded.message().origin());
          e.outcome = Outcome.PARKED;
        }
      }
    }
    return toApply;
  }

  /**
   * Moves the positions; returns the aggregates whose next version waits in the parking. One
   * statement.
   */
  java.util.Set<AggregateKey> move(Connection conn, Map<AggregateKey, Long> moved)
      throws SQLException {
    return positions.move(conn, consumer, moved);
  }
}
