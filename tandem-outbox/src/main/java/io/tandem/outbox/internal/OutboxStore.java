package io.tandem.outbox.internal;

import io.tandem.core.ErrorClass;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The relay's row-level database work: read due events of owned partitions, then record each
 * batch's outcome, fenced by partition ownership. Reading takes no row lock and writes nothing;
 * every event row is written once when published.
 */
public final class OutboxStore {
  private static final int MAX_ERROR_LENGTH = 2000;

  private final DataSource dataSource;
  private final Dialect dialect;
  private final ClaimedRowDecoder decoder;

  public OutboxStore(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.decoder = new ClaimedRowDecoder(dialect);
  }

  /**
   * Reads up to {@code batchSize} due rows of {@code partitions} with a row id above {@code
   * cursor}, in row order: the events, and apart the rows that do not hold a valid event.
   */
  public ClaimedBatch claim(OwnedPartitions partitions, long cursor, int batchSize) {
    try (Connection c = dataSource.getConnection()) {
      return dialect
          .outbox()
          .claim(c, partitions.epochs().keySet(), cursor, batchSize, rs -> read(rs, batchSize));
    } catch (SQLException e) {
      throw new JdbcException("reading due outbox events failed", e);
    }
  }

  private ClaimedBatch read(ResultSet rs, int batchSize) throws SQLException {
    List<ClaimedEvent> events = new ArrayList<>(batchSize);
    List<UndecodableRow> undecodable = List.of();
    int rows = 0;
    long last = 0;
    while (rs.next()) {
      ClaimedRow row = decoder.decode(rs);
      rows++;
      last = row.rowId();
      if (row instanceof ClaimedEvent event) {
        events.add(event);
      } else {
        if (undecodable.isEmpty()) {
          undecodable = new ArrayList<>();
        }
        undecodable.add((UndecodableRow) row);
      }
    }
    return rows == 0 ? ClaimedBatch.EMPTY : new ClaimedBatch(events, undecodable, rows, last);
  }

  /**
   * Records the outcome of one batch in one transaction, fenced by {@code owned}: rows of a
   * partition this relay no longer owns under the same epoch are left alone.
   *
   * @return how many acknowledged rows were marked published
   */
  public int record(
      String relayId, OwnedPartitions owned, List<Long> acknowledged, List<Failure> failures) {
    try {
      if (failures.isEmpty() && dialect.outbox().markPublishedStandsAlone()) {
        if (acknowledged.isEmpty()) {
          return 0;
        }
        try (Connection conn = dataSource.getConnection()) {
          if (conn.getAutoCommit()) {
            return markPublished(conn, relayId, owned, acknowledged); // one round trip
          }
          // a pool that hands out connections in manual-commit mode
          return Transactions.inTransaction(
              conn, c -> markPublished(c, relayId, owned, acknowledged));
        }
      }
      return Transactions.inTransaction(
          dataSource,
          dialect.relayIsolation(),
          conn -> {
            dialect.outbox().relaxCommit(conn);
            int marked =
                acknowledged.isEmpty() ? 0 : markPublished(conn, relayId, owned, acknowledged);
            for (Failure f : failures) {
              fail(conn, relayId, owned, f);
            }
            return marked;
          });
    } catch (SQLException e) {
      throw new JdbcException("recording publish results failed", e);
    }
  }

  private int markPublished(
      Connection conn, String relayId, OwnedPartitions owned, List<Long> rowIds)
      throws SQLException {
    return dialect.outbox().markPublished(conn, relayId, owned.epochs(), rowIds);
  }

  private void fail(Connection conn, String relayId, OwnedPartitions owned, Failure f)
      throws SQLException {
    Long epoch = owned.epochs().get(f.partition());
    if (epoch == null) {
      return; // not ours any more: the new owner retries it
    }
    String error = truncate(f.error());
    if (f.quarantine()) {
      dialect.outbox().quarantine(conn, f.rowId(), relayId, epoch, f.errorClass(), error);
    } else {
      dialect
          .outbox()
          .retryLater(conn, f.rowId(), relayId, epoch, f.retryDelay(), f.errorClass(), error);
    }
  }

  private static String truncate(String s) {
    if (s == null) {
      return null;
    }
    return s.length() <= MAX_ERROR_LENGTH ? s : s.substring(0, MAX_ERROR_LENGTH);
  }

  /** A failed publish: retry after {@code retryDelay}, or quarantine. */
  public record Failure(
      long rowId,
      int partition,
      ErrorClass errorClass,
      String error,
      boolean quarantine,
      Duration retryDelay) {}
}
