package io.tandem.cdc.internal;

import io.tandem.core.ErrorClass;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.OutboxRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The CDC relay's writes to the outbox (marks, retries, quarantines) and its reads of rows the
 * stream left in the database. Unlike the polling relay's, these are not fenced by partition
 * leases: one replication slot has one reader at a time, which PostgreSQL enforces (on MariaDB, one
 * relay per server id and stored position, which the operator keeps).
 */
public final class CdcStore {
  private static final int MAX_ERROR_LENGTH = 2000;

  private final DataSource dataSource;
  private final CdcDialect dialect;

  public CdcStore(DataSource dataSource, CdcDialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /** A pending row of a held aggregate, and whether it may be published now. */
  public record PendingRow(OutboxRow row, int attempts, boolean quarantined, boolean waiting) {}

  public int markPublished(String relayId, List<Long> rowIds) {
    if (rowIds.isEmpty()) {
      return 0;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.markPublished())) {
      ps.setString(1, relayId);
      dialect.jdbc().bindList(c, ps, 2, rowIds);
      int marked = ps.executeUpdate();
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return marked;
    } catch (SQLException e) {
      throw new JdbcException("marking " + rowIds.size() + " outbox rows published failed", e);
    }
  }

  /**
   * Which of the stream's rows the table holds, and whether each is marked published. A row of the
   * stream the table lacks was never committed (an XA branch prepared, then rolled back) or was
   * published and deleted by retention since; on MariaDB the read waits for a prepared branch's
   * outcome.
   */
  public Map<Long, Boolean> rowsOfStream(List<Long> rowIds) {
    Map<Long, Boolean> found = new HashMap<>();
    if (rowIds.isEmpty()) {
      return found;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.rowsOfStream())) {
      dialect.jdbc().bindList(c, ps, 1, rowIds);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.put(rs.getLong(1), rs.getBoolean(2));
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return found;
    } catch (SQLException e) {
      throw new JdbcException(
          "reading which of " + rowIds.size() + " streamed outbox rows the table holds failed", e);
    }
  }

  public void retryLater(long rowId, Duration delay, ErrorClass errorClass, String error) {
    update(dialect.retryLater(), rowId, delay, errorClass, error);
  }

  public void quarantine(long rowId, ErrorClass errorClass, String error) {
    update(dialect.quarantine(), rowId, null, errorClass, error);
  }

  private void update(String sql, long rowId, Duration delay, ErrorClass errorClass, String error) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      if (delay != null) {
        ps.setLong(i++, delay.toMillis());
      }
      ps.setString(i++, truncate(error));
      ps.setString(i++, errorClass.name());
      ps.setLong(i, rowId);
      ps.executeUpdate();
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new JdbcException("recording a failed publish of outbox row " + rowId + " failed", e);
    }
  }

  public Set<Aggregate> pendingAggregates() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.pendingAggregates());
        ResultSet rs = ps.executeQuery()) {
      Set<Aggregate> found = new LinkedHashSet<>();
      while (rs.next()) {
        found.add(new Aggregate(rs.getString(1), rs.getString(2)));
      }
      return found;
    } catch (SQLException e) {
      throw new JdbcException("reading the aggregates with unpublished outbox rows failed", e);
    }
  }

  /**
   * Up to {@code limit} pending rows of {@code aggregate} in version order. A row that holds no
   * instant in occurred_at comes back with a null one, and fails to decode as an event.
   */
  public List<PendingRow> pendingRows(Aggregate aggregate, int limit) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.pendingOfAggregate())) {
      ps.setString(1, aggregate.type());
      ps.setString(2, aggregate.id());
      ps.setInt(3, limit);
      List<PendingRow> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new PendingRow(
                  OutboxRow.read(rs, dialect.jdbc()),
                  rs.getInt("attempts"),
                  rs.getBoolean("quarantined"),
                  rs.getBoolean("waiting")));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new JdbcException("reading the unpublished rows of " + aggregate + " failed", e);
    }
  }

  /** Whether a position is stored under {@code storeName}. */
  public boolean hasOffsets(String storeName) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.offsets())) {
      ps.setString(1, storeName);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw new JdbcException("reading the CDC relay's stored position failed", e);
    }
  }

  public void registerRelay(String slot, String relayId, String host) {
    execute(dialect.registerRelay(), slot, relayId, host);
  }

  public void relayHeartbeat(String slot, long publishedSince, Instant lastPublished) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.relayHeartbeat())) {
      ps.setLong(1, publishedSince);
      dialect.jdbc().bindInstant(ps, 2, lastPublished);
      ps.setString(3, slot);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new JdbcException("recording the CDC relay's heartbeat failed", e);
    }
  }

  public void relayFlushed(String slot) {
    execute(dialect.relayFlushed(), slot);
  }

  private void execute(String sql, String... parameters) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setString(i + 1, parameters[i]);
      }
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new JdbcException("writing the CDC relay's row in tandem_cdc_relay failed", e);
    }
  }

  private static String truncate(String s) {
    return s == null || s.length() <= MAX_ERROR_LENGTH ? s : s.substring(0, MAX_ERROR_LENGTH);
  }
}
