package io.tandem.jdbc;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The statements on outbox rows: the writer's insert and the relay's reads and marks. Each method
 * binds its own parameters and runs on the caller's connection, in the caller's transaction; the
 * caller maps {@link SQLException}. Get it from {@link Dialect#outbox()}.
 *
 * <p>Stateless and thread-safe.
 */
public final class OutboxStatements {
  /** The texts of one database family; {@code recordPreamble} runs before a batch's marks. */
  record Sql(
      String insert,
      String claim,
      String markPublished,
      boolean markPublishedStandsAlone,
      String retryLater,
      String quarantine,
      Optional<String> recordPreamble) {}

  private final Dialect dialect;
  private final Sql sql;

  OutboxStatements(Dialect dialect, Sql sql) {
    this.dialect = dialect;
    this.sql = sql;
  }

  /**
   * Inserts events in list order: one statement for one event, one JDBC batch for several. Headers
   * are stored as their JSON text.
   */
  public void insert(Connection connection, List<Event> events) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.insert())) {
      for (Event e : events) {
        ps.setObject(1, e.eventId());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setLong(4, e.aggregateVersion());
        ps.setString(5, e.eventType());
        ps.setInt(6, e.schemaVersion());
        ps.setString(7, e.payload());
        ps.setString(8, e.headers().toJson());
        dialect.bindInstant(ps, 9, e.occurredAt());
        if (events.size() > 1) {
          ps.addBatch();
        }
      }
      if (events.size() > 1) {
        ps.executeBatch();
      } else if (events.size() == 1) {
        ps.executeUpdate();
      }
    }
  }

  /**
   * Reads due events of the given partitions, in row order, skipping every event that has an
   * earlier unpublished version of its aggregate that cannot go first (quarantined, waiting for a
   * retry, inserted later, or at or below the cursor). Only rows with an id above {@code cursor}
   * are read (0 reads from the start): the relay skips the rows of batches it published and has not
   * recorded yet, and an event whose earlier version lies at or below the cursor waits for the next
   * scan from the start. Takes no row lock.
   *
   * <p>Columns: id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
   * schema_version, payload (text), headers (text), occurred_at, attempts, partition_no.
   */
  public <T> T claim(
      Connection connection,
      Collection<Integer> partitions,
      long cursor,
      int limit,
      ResultReader<T> reader)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.claim())) {
      dialect.bindList(connection, ps, 1, partitions);
      ps.setLong(2, cursor);
      ps.setLong(3, cursor);
      ps.setInt(4, limit);
      try (ResultSet rs = ps.executeQuery()) {
        return reader.read(rs);
      }
    }
  }

  /**
   * Marks acknowledged rows published by {@code relayId}, fenced by partition ownership: only rows
   * of partitions the relay still owns, under the epoch {@code epochs} gives for the partition and
   * with a live lease.
   *
   * @param epochs the epoch of each partition the relay holds, by partition number
   * @return how many rows were marked
   */
  public int markPublished(
      Connection connection, String relayId, Map<Integer, Long> epochs, Collection<Long> rowIds)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.markPublished())) {
      ps.setString(1, relayId);
      dialect.bindList(connection, ps, 2, epochs.keySet());
      dialect.bindList(connection, ps, 3, epochs.values());
      dialect.bindList(connection, ps, 4, rowIds);
      ps.setString(5, relayId);
      return ps.executeUpdate();
    }
  }

  /**
   * Whether {@link #markPublished} may run alone in auto-commit mode, one round trip, when a batch
   * has nothing else to record: the statement relaxes its own commit as {@link #relaxCommit} would
   * and needs no particular isolation level. When false the relay runs it in a transaction after
   * {@link #relaxCommit}.
   */
  public boolean markPublishedStandsAlone() {
    return sql.markPublishedStandsAlone();
  }

  /**
   * Run first in the transaction that records a batch's outcome: relaxes the commit's durability
   * where the database allows it per transaction (PostgreSQL's {@code SET LOCAL synchronous_commit
   * TO OFF}), does nothing where it does not. A mark lost in a database crash only makes the relay
   * publish those events again (at least once), so the relay need not wait for the disk, nor make
   * writers wait behind its flushes.
   */
  public void relaxCommit(Connection connection) throws SQLException {
    if (sql.recordPreamble().isPresent()) {
      try (Statement s = connection.createStatement()) {
        s.execute(sql.recordPreamble().get());
      }
    }
  }

  /**
   * Schedules one row for another attempt after {@code delay}, counting the attempt and keeping the
   * error; fenced: only while {@code relayId} owns the row's partition under {@code epoch}.
   *
   * @return 1, or 0 when fenced off or already published
   */
  public int retryLater(
      Connection connection,
      long rowId,
      String relayId,
      long epoch,
      Duration delay,
      ErrorClass errorClass,
      String error)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.retryLater())) {
      ps.setLong(1, delay.toMillis());
      ps.setString(2, error);
      ps.setString(3, errorClass.name());
      ps.setLong(4, rowId);
      ps.setString(5, relayId);
      ps.setLong(6, epoch);
      return ps.executeUpdate();
    }
  }

  /**
   * Quarantines one row, counting the attempt and keeping the error; fenced as {@link #retryLater}.
   *
   * @return 1, or 0 when fenced off or already published
   */
  public int quarantine(
      Connection connection,
      long rowId,
      String relayId,
      long epoch,
      ErrorClass errorClass,
      String error)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.quarantine())) {
      ps.setString(1, error);
      ps.setString(2, errorClass.name());
      ps.setLong(3, rowId);
      ps.setString(4, relayId);
      ps.setLong(5, epoch);
      return ps.executeUpdate();
    }
  }
}
