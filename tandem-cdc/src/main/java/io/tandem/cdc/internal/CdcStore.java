package io.tandem.cdc.internal;

import io.tandem.core.ErrorClass;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.PostgresDialect;
import io.tandem.outbox.OutboxRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The CDC relay's writes to the outbox (marks, retries, quarantines) and its reads of rows the
 * stream left in the database. Unlike the polling relay's, these are not fenced by partition
 * leases: one replication slot has one reader at a time, which PostgreSQL enforces.
 */
public final class CdcStore {
  private static final int MAX_ERROR_LENGTH = 2000;
  private static final PostgresDialect DIALECT = PostgresDialect.INSTANCE;

  private final DataSource dataSource;

  public CdcStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** A pending row of a held aggregate, and whether it may be published now. */
  public record PendingRow(OutboxRow row, int attempts, boolean quarantined, boolean waiting) {}

  public int markPublished(String relayId, List<Long> rowIds) {
    if (rowIds.isEmpty()) {
      return 0;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.MARK_PUBLISHED)) {
      ps.setString(1, relayId);
      ps.setArray(2, c.createArrayOf("bigint", rowIds.toArray()));
      int marked = ps.executeUpdate();
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return marked;
    } catch (SQLException e) {
      throw new JdbcException("marking " + rowIds.size() + " outbox rows published failed", e);
    }
  }

  public void retryLater(long rowId, Duration delay, ErrorClass errorClass, String error) {
    update(PostgresCdcDialect.RETRY_LATER, rowId, delay, errorClass, error);
  }

  public void quarantine(long rowId, ErrorClass errorClass, String error) {
    update(PostgresCdcDialect.QUARANTINE, rowId, null, errorClass, error);
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
        PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.PENDING_AGGREGATES);
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
        PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.PENDING_OF_AGGREGATE)) {
      ps.setString(1, aggregate.type());
      ps.setString(2, aggregate.id());
      ps.setInt(3, limit);
      List<PendingRow> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new PendingRow(
                  OutboxRow.read(rs, DIALECT),
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

  public void registerRelay(String slot, String relayId, String host) {
    execute(PostgresCdcDialect.REGISTER_RELAY, slot, relayId, host);
  }

  public void relayHeartbeat(String slot, long publishedSince, Instant lastPublished) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.RELAY_HEARTBEAT)) {
      ps.setLong(1, publishedSince);
      if (lastPublished == null) {
        ps.setNull(2, Types.TIMESTAMP_WITH_TIMEZONE);
      } else {
        ps.setObject(2, OffsetDateTime.ofInstant(lastPublished, ZoneOffset.UTC));
      }
      ps.setString(3, slot);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new JdbcException("recording the CDC relay's heartbeat failed", e);
    }
  }

  public void relayFlushed(String slot) {
    execute(PostgresCdcDialect.RELAY_FLUSHED, slot);
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
