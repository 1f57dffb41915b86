package io.tandem.spring;

import io.tandem.core.Event;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Appends events to the outbox inside the current Spring-managed transaction: the event row commits
 * or rolls back with the business change made by {@code JdbcTemplate}, JPA or jOOQ on the same
 * {@code DataSource}.
 *
 * <pre>{@code
 * @Transactional
 * public void confirm(long orderId) {
 *   jdbc.update("UPDATE orders SET status = 'CONFIRMED', version = version + 1 WHERE id = ?", orderId);
 *   outbox.append(Event.builder().aggregate("Order", String.valueOf(orderId), version)
 *       .eventType("OrderConfirmed").payload(json).build());
 * }
 * }</pre>
 *
 * <p>The connection comes from {@link DataSourceUtils#getConnection(DataSource)}, so it is the one
 * the transaction manager bound to this thread. Outside a transaction, in a read-only one, or in a
 * transaction on another {@code DataSource}, {@link #append} throws {@link
 * IllegalTransactionStateException} and writes nothing. Thread-safe.
 */
public final class TandemOutbox {
  private final DataSource dataSource;
  private final Outbox outbox;

  /** An outbox on {@code dataSource}, its database family detected from the connection. */
  public TandemOutbox(DataSource dataSource) {
    this(dataSource, Outbox.create());
  }

  public TandemOutbox(DataSource dataSource, Outbox outbox) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
  }

  /**
   * Inserts {@code event} in the current transaction.
   *
   * @throws IllegalTransactionStateException when no read-write transaction on this outbox's {@code
   *     DataSource} is active
   * @throws io.tandem.outbox.OutboxConflictException when the event id or aggregate version exists
   */
  public void append(Event event) {
    appendAll(List.of(Objects.requireNonNull(event, "event")));
  }

  /** Inserts several events in list order, in one round trip, in the current transaction. */
  public void appendAll(List<Event> events) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalTransactionStateException(
          "TandemOutbox.append needs an active transaction, and none is: annotate the calling"
              + " method with @Transactional (or run it in TransactionTemplate.execute) so the"
              + " event commits together with the business change");
    }
    if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
      throw new IllegalTransactionStateException(
          "TandemOutbox.append cannot write in a read-only transaction: remove readOnly = true"
              + " from the calling method's @Transactional");
    }
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      if (connection.getAutoCommit()) {
        throw new IllegalTransactionStateException(
            "a transaction is active, but not on the DataSource the outbox writes to: run the"
                + " calling method under a transaction manager of that DataSource"
                + " (DataSourceTransactionManager or JpaTransactionManager on it)");
      }
      outbox.appendAll(connection, events);
    } catch (SQLException e) {
      throw new JdbcException("cannot read the connection's auto-commit mode", e);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }
}
