package io.tandem.inbox;

import io.tandem.inbox.internal.ConsumerStore;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.TransactionWork;
import io.tandem.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The operator's read-only view of a consumer's tables, without its handlers: dead letters and
 * aggregates waiting for a missing version. {@link InboxProcessor#deadLetters} and {@link
 * InboxProcessor#gaps} are the same queries; replaying or discarding a dead letter needs the
 * handlers and the ordering setting, so it stays on {@link InboxProcessor} (the {@code tandem
 * inbox} command only reads).
 *
 * <pre>{@code
 * InboxOperations ops = InboxOperations.create(billingDataSource);
 * ops.deadLetters("billing", DeadLetterStatus.DEAD, 0, 100);
 * ops.gaps("billing", Duration.ofMinutes(5), 100);
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class InboxOperations {
  private final DataSource dataSource;
  private final Dialect dialect;
  private final ConsumerStore store;

  private InboxOperations(DataSource dataSource, Dialect dialect) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.store = new ConsumerStore(dialect);
  }

  /** The consumer tables in {@code dataSource} (PostgreSQL or MariaDB). */
  public static InboxOperations create(DataSource dataSource) {
    return new InboxOperations(dataSource, Dialect.of(dataSource));
  }

  public static InboxOperations create(DataSource dataSource, Dialect dialect) {
    return new InboxOperations(dataSource, dialect);
  }

  /**
   * Dead letters of {@code consumer} with {@code status}, in id order after {@code afterId} (0 for
   * the first page), at most {@code limit} (1 to 10,000).
   */
  public List<DeadLetter> deadLetters(
      String consumer, DeadLetterStatus status, long afterId, int limit) {
    requireConsumer(consumer);
    Objects.requireNonNull(status, "status");
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000, was " + limit);
    }
    return read(conn -> store.listDeadLetters(conn, consumer, status, afterId, limit));
  }

  /** How many dead letters of {@code consumer} are open ({@link DeadLetterStatus#DEAD}). */
  public long openDeadLetters(String consumer) {
    requireConsumer(consumer);
    return read(conn -> store.countDeadLetters(conn, consumer));
  }

  /**
   * Aggregates of {@code consumer} whose parked events have waited at least {@code olderThan} for a
   * missing version, oldest first, each with the reason.
   */
  public List<AggregateGap> gaps(String consumer, Duration olderThan, int limit) {
    requireConsumer(consumer);
    if (olderThan == null || olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must be zero or positive, was " + olderThan);
    }
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000, was " + limit);
    }
    return read(conn -> store.gaps(conn, consumer, olderThan, limit));
  }

  private static void requireConsumer(String consumer) {
    if (consumer == null || consumer.isBlank()) {
      throw new IllegalArgumentException("consumer must not be blank");
    }
  }

  private <T> T read(TransactionWork<T, SQLException> work) {
    try {
      return Transactions.inTransaction(dataSource, dialect.consumerIsolation(), work);
    } catch (SQLException e) {
      throw new JdbcException("reading the consumer tables failed", e);
    }
  }
}
