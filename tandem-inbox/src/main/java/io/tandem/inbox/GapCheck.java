package io.tandem.inbox;

import io.tandem.inbox.internal.DeadLetterStore;
import io.tandem.inbox.internal.ParkingStore;
import io.tandem.jdbc.JdbcException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the parked and dead-letter figures into the consumer's gauges and warns about every gap
 * older than the alert threshold ({@link InboxProcessor#checkGaps}).
 */
final class GapCheck {
  private static final Logger LOG = LoggerFactory.getLogger(GapCheck.class);

  private final ConsumerParts parts;
  private final InboxOperations operations;
  private final Duration alertAfter;
  private final ParkingStore parking;
  private final DeadLetterStore letters;

  GapCheck(ConsumerParts parts, InboxOperations operations, Duration alertAfter) {
    this.parts = parts;
    this.operations = operations;
    this.alertAfter = alertAfter;
    this.parking = new ParkingStore(parts.dialect());
    this.letters = new DeadLetterStore(parts.dialect());
  }

  List<AggregateGap> run() {
    String consumer = parts.consumer();
    List<AggregateGap> overdue = operations.gaps(consumer, alertAfter, 100);
    ParkingStore.ParkedSummary summary;
    long dead;
    try {
      summary = parts.attempts().tx(c -> parking.parkedSummary(c, consumer));
      dead = parts.attempts().tx(c -> letters.countDeadLetters(c, consumer));
    } catch (SQLException e) {
      throw new JdbcException("consumer " + consumer + ": reading the consumer tables failed", e);
    }
    ConsumerMetrics m = parts.metrics();
    m.parkedNow.set(summary.parked());
    m.oldestGapSeconds.set(summary.oldest().map(Duration::toSeconds).orElse(0L));
    m.overdueGaps.set(overdue.size());
    m.deadLettersNow.set(dead);
    for (AggregateGap gap : overdue) {
      LOG.warn(
          "consumer {}: aggregate {}/{}: {}",
          consumer,
          gap.aggregateType(),
          gap.aggregateId(),
          gap.explanation());
    }
    return overdue;
  }
}
