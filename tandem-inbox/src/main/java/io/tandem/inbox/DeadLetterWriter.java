package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.internal.DeadLetterStore;
import io.tandem.inbox.internal.ParkingStore;
import io.tandem.jdbc.Dialect;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a message to {@code tandem_dead_letter} with its raw form, the reason and the attempts (a
 * parked event leaves the parking in the same transaction), retried until written or stopping.
 */
final class DeadLetterWriter {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterWriter.class);

  private final String consumer;
  private final DeadLetterStore letters;
  private final ParkingStore parking;
  private final Attempts attempts;
  private final AfterCommit afterCommit;
  private final ConsumerMetrics metrics;

  DeadLetterWriter(
      String consumer,
      Dialect dialect,
      Attempts attempts,
      AfterCommit afterCommit,
      ConsumerMetrics metrics) {
    this.consumer = consumer;
    this.letters = new DeadLetterStore(dialect);
    this.parking = new ParkingStore(dialect);
    this.attempts = attempts;
    this.afterCommit = afterCommit;
    this.metrics = metrics;
  }

  /** DEAD_LETTERED once written, ABANDONED when stopping came first (nothing written). */
  Outcome write(
      Decoded d, DeadLetterReason reason, String text, int attemptCount, BooleanSupplier stop) {
    InboundMessage m = d.message();
    Event event = d.event();
    LOG.error("consumer {}: {} ({}); dead-lettering it", consumer, text, m.origin());
    boolean written =
        attempts.untilDone(
            "writing the dead letter for " + m.origin(),
            conn -> {
              if (m instanceof ParkedMessage p) {
                Event e = p.event();
                parking.deleteParked(
                    conn, consumer, e.aggregateType(), e.aggregateId(), e.aggregateVersion());
              }
              letters.insertDeadLetter(
                  conn,
                  consumer,
                  reason,
                  text,
                  attemptCount,
                  m.origin(),
                  m.rawHeaders(),
                  m.rawBody(),
                  event);
              return null;
            },
            stop);
    if (!written) {
      return Outcome.ABANDONED;
    }
    afterCommit.committed(event, Outcome.DEAD_LETTERED);
    metrics.deadLettered(reason);
    return Outcome.DEAD_LETTERED;
  }
}
