package io.tandem.inbox;

import io.tandem.inbox.internal.AdvanceStore;
import io.tandem.inbox.internal.DeadLetterStore;
import io.tandem.inbox.internal.GapReport;
import io.tandem.inbox.internal.ParkingStore;
import io.tandem.inbox.internal.PositionStore;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.TransactionWork;
import io.tandem.jdbc.Transactions;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The operator's view of a consumer's tables, without its handlers: dead letters, aggregates
 * waiting for a missing version, and the one repair that needs no handler — {@link #advance moving
 * a position past versions that will never arrive}, recorded with who and why. {@link
 * InboxProcessor#deadLetters} and {@link InboxProcessor#gaps} are the same queries; replaying or
 * discarding a dead letter needs the handlers and the ordering setting, so it stays on {@link
 * InboxProcessor}.
 *
 * <pre>{@code
 * InboxOperations ops = InboxOperations.create(billingDataSource);
 * ops.deadLetters("billing", DeadLetterStatus.DEAD, 0, 100);
 * ops.gaps("billing", Duration.ofMinutes(5), 100);
 * ops.advance("billing", "Order", "o-17", 2, "v2 skipped at the producer, OPS-123", "alice");
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class InboxOperations {
  private final DataSource dataSource;
  private final Dialect dialect;
  private final PositionStore positions;
  private final ParkingStore parking;
  private final DeadLetterStore letters;
  private final AdvanceStore advances;
  private final GapReport gapReport;

  private InboxOperations(DataSource dataSource, Dialect dialect) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.positions = new PositionStore(dialect);
    this.parking = new ParkingStore(dialect);
    this.letters = new DeadLetterStore(dialect);
    this.advances = new AdvanceStore(dialect);
    this.gapReport = new GapReport(dialect);
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
    return read(conn -> letters.listDeadLetters(conn, consumer, status, afterId, limit));
  }

  /**
   * The ids of the events {@code consumer} processed, as its inbox records them (until retention
   * removes them): for checking a run end to end against {@code OutboxOperations#eventIds}. Reads
   * all of the consumer's records; not for large production inboxes.
   */
  public Set<UUID> processedEventIds(String consumer) {
    requireConsumer(consumer);
    return read(
        conn -> {
          Set<UUID> ids = new HashSet<>();
          try (PreparedStatement ps = conn.prepareStatement(dialect.inboxEventIds())) {
            ps.setString(1, consumer);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                ids.add(rs.getObject("event_id", UUID.class));
              }
            }
          }
          return ids;
        });
  }

  /** How many dead letters of {@code consumer} are open ({@link DeadLetterStatus#DEAD}). */
  public long openDeadLetters(String consumer) {
    requireConsumer(consumer);
    return read(conn -> letters.countDeadLetters(conn, consumer));
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
    return read(conn -> gapReport.gaps(conn, consumer, olderThan, limit));
  }

  /**
   * Moves {@code consumer}'s position for one aggregate to {@code toVersion} without applying the
   * versions in between, and records who did it and why in {@code tandem_inbox_advance} (kept for
   * good). For versions that will never arrive — an event skipped at the producer ({@code tandem
   * outbox skip}), a version lost to a producer's bug — which an ordered consumer would otherwise
   * wait for forever, parking every later version.
   *
   * <p>A running consumer applies the parked successors at its next sweep ({@link ConsumerRunner}'s
   * {@code sweepInterval}, 5 s by default); {@link InboxProcessor#advance} applies them at once. A
   * skipped version that arrives after all is dropped (logged with the advance's id).
   *
   * <pre>{@code
   * ops.advance("billing", "Order", "o-17", 2, "v2 skipped at the producer, OPS-123", "alice");
   * }</pre>
   *
   * @param toVersion the version to treat as applied: above the position, and below every parked
   *     version of the aggregate (a parked event arrived, so it is applied, not advanced over)
   * @return the record written
   * @throws IllegalArgumentException for a blank consumer, aggregate, reason or actor, or a version
   *     below 1
   * @throws IllegalStateException when the position is at or past {@code toVersion} already, when a
   *     version up to {@code toVersion} is parked, or when an open dead letter holds one (discard
   *     it instead, which keeps it for review)
   */
  public InboxAdvance advance(
      String consumer,
      String aggregateType,
      String aggregateId,
      long toVersion,
      String reason,
      String advancedBy) {
    requireConsumer(consumer);
    requireText(aggregateType, "aggregateType");
    requireText(aggregateId, "aggregateId");
    requireText(advancedBy, "advancedBy");
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException(
          "a reason is required to advance "
              + consumer
              + " past versions of "
              + aggregateType
              + "/"
              + aggregateId
              + " (it is kept in tandem_inbox_advance for review)");
    }
    if (toVersion < 1) {
      throw new IllegalArgumentException("toVersion must be at least 1, was " + toVersion);
    }
    String aggregate = aggregateType + "/" + aggregateId;
    return read(
        conn -> {
          long last = positions.lockPosition(conn, consumer, aggregateType, aggregateId, 0);
          if (toVersion <= last) {
            throw new IllegalStateException(
                "consumer "
                    + consumer
                    + " is at version "
                    + last
                    + " of "
                    + aggregate
                    + " already; nothing to advance to version "
                    + toVersion);
          }
          var parked = parking.lowestParked(conn, consumer, aggregateType, aggregateId);
          if (parked.isPresent() && parked.getAsLong() <= toVersion) {
            throw new IllegalStateException(
                "version "
                    + parked.getAsLong()
                    + " of "
                    + aggregate
                    + " is parked for consumer "
                    + consumer
                    + " (it arrived and waits for version "
                    + (last + 1)
                    + "); advancing to "
                    + toVersion
                    + " would drop it. Advance to at most version "
                    + (parked.getAsLong() - 1)
                    + " so that it is applied");
          }
          var dead = letters.blockingDeadLetter(conn, consumer, aggregateType, aggregateId);
          if (dead.isPresent() && dead.get()[1] <= toVersion) {
            throw new IllegalStateException(
                "dead letter #"
                    + dead.get()[0]
                    + " holds version "
                    + dead.get()[1]
                    + " of "
                    + aggregate
                    + " for consumer "
                    + consumer
                    + ": replay or discard it from the application (InboxProcessor.replay /"
                    + " discard; a discard moves the position past it and keeps it for review)");
          }
          long id =
              advances.insertAdvance(
                  conn,
                  consumer,
                  aggregateType,
                  aggregateId,
                  last,
                  toVersion,
                  reason.strip(),
                  advancedBy.strip());
          positions.updatePosition(conn, consumer, aggregateType, aggregateId, toVersion);
          return advances.listAdvances(conn, consumer, id - 1, 1).get(0);
        });
  }

  /** {@code consumer}'s advances after {@code afterId} (0 for the first page), oldest first. */
  public List<InboxAdvance> advances(String consumer, long afterId, int limit) {
    requireConsumer(consumer);
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000, was " + limit);
    }
    return read(conn -> advances.listAdvances(conn, consumer, afterId, limit));
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
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
