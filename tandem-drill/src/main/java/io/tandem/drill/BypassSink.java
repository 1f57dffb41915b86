package io.tandem.drill;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.jdbc.Transactions;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The consumer with its protection switched off: applies each message in its own transaction
 * without the inbox (no dedup, no ordering guard), then acknowledges; a message whose effect fails
 * is logged and dropped. Used by one hand-over thread at a time.
 */
final class BypassSink implements MessageSink {
  private final DataSource ds;
  private final FaultInjector faults;

  BypassSink(DataSource ds, FaultInjector faults) {
    this.ds = ds;
    this.faults = faults;
  }

  @Override
  public boolean accept(InboundMessage message) {
    try {
      Event event = message.decode();
      Transactions.inTransaction(
          ds,
          c -> {
            DrillEffects.apply(c, event);
            return null;
          });
    } catch (RuntimeException | SQLException e) {
      System.out.println("dropped a message whose effect failed: " + e.getMessage());
    }
    faults.reached(FaultInjector.CONSUMER_AFTER_COMMIT);
    message.acknowledge();
    return true;
  }
}
