package io.tandem.drill;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * A message source that records every message it receives in {@code drill_deliveries} before the
 * consumer may process it: messages wait here until their rows are committed (up to {@value
 * #MAX_BATCH} rows in one transaction, or whatever arrived within {@value #LINGER_MS} ms), and only
 * then go on to the sink, in the order received. One row per message received, duplicates included:
 * the checker counts redeliveries from it, and never from the consumer's counters.
 *
 * <p>Thread-safe: the source's hand-over thread and the log's flush timer share it under its lock.
 */
final class DeliveryLog implements MessageSource {
  static final int MAX_BATCH = 200;
  static final long LINGER_MS = 20;
  private static final String INSERT = "INSERT INTO drill_deliveries (event_id) VALUES (?)";

  private final MessageSource delegate;
  private final DataSource ds;
  private final List<InboundMessage> pending = new ArrayList<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "drill-delivery-log"));
  private MessageSink sink;
  private int logged; // how many of pending (from the front) have their rows committed
  private boolean refused;

  DeliveryLog(MessageSource delegate, DataSource ds) {
    this.delegate = delegate;
    this.ds = ds;
  }

  @Override
  public String transport() {
    return delegate.transport();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  @Override
  public void start(MessageSink sink) {
    this.sink = sink;
    timer.scheduleWithFixedDelay(this::flushQuietly, LINGER_MS, LINGER_MS, TimeUnit.MILLISECONDS);
    delegate.start(this::take);
  }

  private synchronized boolean take(InboundMessage message) throws InterruptedException {
    if (refused) {
      return false;
    }
    // The hand-over thread offers a message again after a failed flush: hold it once only.
    if (pending.isEmpty() || pending.get(pending.size() - 1) != message) {
      pending.add(message);
    }
    return pending.size() < MAX_BATCH || flush();
  }

  private void flushQuietly() {
    try {
      flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      System.out.println("could not log deliveries yet, retrying: " + e.getMessage());
    }
  }

  /** Logs what is pending, then hands it on; false once the sink refused a message. */
  private synchronized boolean flush() throws InterruptedException {
    if (pending.isEmpty() || refused) {
      return !refused;
    }
    if (logged < pending.size()) {
      insert(pending.subList(logged, pending.size()));
      logged = pending.size();
    }
    while (!pending.isEmpty()) {
      if (!sink.accept(pending.get(0))) {
        refused = true; // this one and those after it stay unsettled: they come again
        pending.clear();
        break;
      }
      pending.remove(0); // handed on: a failure of the next one must not hand it twice
      logged--;
    }
    logged = 0;
    return !refused;
  }

  private void insert(List<InboundMessage> messages) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(INSERT)) {
        for (InboundMessage m : messages) {
          ps.setObject(1, eventId(m));
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot log deliveries: " + e.getMessage(), e);
    }
  }

  private static UUID eventId(InboundMessage m) {
    try {
      Event event = m.decode();
      return event.eventId();
    } catch (RuntimeException e) {
      return null; // an undecodable message is still a delivery
    }
  }

  @Override
  public boolean isRunning() {
    return delegate.isRunning();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    delegate.close();
  }
}
