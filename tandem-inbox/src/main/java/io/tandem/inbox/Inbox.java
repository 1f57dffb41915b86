package io.tandem.inbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.TandemException;
import io.tandem.inbox.internal.PositionStore;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Idempotent event handling: the consumer's side effect and the record "consumer C processed event
 * E" commit in one local transaction. The record is inserted first with {@code ON CONFLICT DO
 * NOTHING}; the work runs only when that insert added a row. A redelivered event therefore changes
 * nothing and is counted as a duplicate. Exactly-once <em>effect</em> per (consumer, event id), on
 * top of at-least-once delivery.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder().dataSource(billingDataSource).build();
 * HandleResult r = inbox.handle("billing", event, (conn, e) -> {
 *   try (PreparedStatement ps = conn.prepareStatement("INSERT INTO invoices ...")) { ... }
 * });
 * }</pre>
 *
 * <p>This is the building block; {@link InboxProcessor} adds per-aggregate ordering, dead letters
 * and retries on top, and {@link ConsumerRunner} feeds it from a broker.
 *
 * <p>When the work throws, the transaction rolls back, the inbox record with it, and the exception
 * reaches the caller unchanged: the delivery is not acknowledged and comes again. Thread-safe.
 */
public final class Inbox {
  private static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9._:-]{1,200}");

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Counter appliedCounter;
  private final Counter duplicateCounter;
  private final AtomicLong applied = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();

  private Inbox(Builder b) {
    this.dataSource = b.dataSource;
    this.dialect = b.dialect;
    this.appliedCounter =
        Counter.builder("tandem.inbox.applied")
            .description("Events whose side effect committed through the inbox")
            .register(b.meters);
    this.duplicateCounter =
        Counter.builder("tandem.inbox.duplicates")
            .description("Deliveries recognised as duplicates and skipped")
            .register(b.meters);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Runs {@code work} once per ({@code consumer}, event id), in a new local transaction.
   *
   * @return {@link HandleResult#APPLIED} when the work ran and committed, {@link
   *     HandleResult#DUPLICATE} when the event had been processed before
   * @throws X whatever the work throws, after the rollback
   */
  public <X extends Exception> HandleResult handle(String consumer, Event event, InboxWork<X> work)
      throws X {
    requireConsumer(consumer);
    return Transactions.inTransaction(dataSource, conn -> handleIn(conn, consumer, event, work));
  }

  /**
   * Like {@link #handle(String, Event, InboxWork)}, but joins the caller's open transaction on
   * {@code connection} (auto-commit off) instead of opening one; the caller commits. Use it when
   * the handler also appends to its own outbox in the same transaction.
   */
  public <X extends Exception> HandleResult handleIn(
      Connection connection, String consumer, Event event, InboxWork<X> work) throws X {
    requireConsumer(consumer);
    if (!record(connection, consumer, event)) {
      duplicates.incrementAndGet();
      duplicateCounter.increment();
      return HandleResult.DUPLICATE;
    }
    work.apply(connection, event);
    applied.incrementAndGet();
    appliedCounter.increment();
    return HandleResult.APPLIED;
  }

  private boolean record(Connection connection, String consumer, Event event) {
    Dialect d = dialect != null ? dialect : Dialect.of(connection);
    try {
      if (connection.getAutoCommit()) {
        throw new TandemException(
            "the inbox needs an open transaction, but the connection is in auto-commit mode:"
                + " call connection.setAutoCommit(false) first");
      }
      return new PositionStore(d).recordProcessed(connection, consumer, event);
    } catch (SQLException e) {
      throw new JdbcException(
          "recording event " + event.eventId() + " for consumer '" + consumer + "' failed", e);
    }
  }

  /** Events applied through this instance since it was built. */
  public long appliedCount() {
    return applied.get();
  }

  /** Duplicate deliveries skipped by this instance since it was built. */
  public long duplicateCount() {
    return duplicates.get();
  }

  private static void requireConsumer(String consumer) {
    if (consumer == null || !CONSUMER_NAME.matcher(consumer).matches()) {
      throw new IllegalArgumentException(
          "consumer name '"
              + consumer
              + "' is invalid: use 1 to 200 letters, digits, '.', '_',"
              + " ':' or '-' (it identifies the consumer in tandem_inbox, so keep it stable)");
    }
  }

  /** Builds an {@link Inbox}; {@code dataSource} is required. */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private MeterRegistry meters = new SimpleMeterRegistry();

    private Builder() {}

    /** The consumer's own database, which holds {@code tandem_inbox} and its business tables. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** The database family; detected from each connection when not set. */
    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /** Where {@code tandem.inbox.*} metrics go; default a private in-memory registry. */
    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = meters;
      return this;
    }

    public Inbox build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource is required");
      }
      if (meters == null) {
        throw new IllegalArgumentException("meterRegistry must not be null");
      }
      return new Inbox(this);
    }
  }
}
