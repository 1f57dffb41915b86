package io.tandem.cdc.internal;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures what a stopped or slow CDC relay costs: the WAL its slot holds beyond the confirmed
 * position (MariaDB: the binlog bytes after the stored position, {@link BinlogLag}), and the age of
 * the oldest row still to publish; reports both as metrics and logs once when either crosses its
 * alert threshold (and once when it is back below).
 */
public final class SlotMonitor {
  private static final Logger log = LoggerFactory.getLogger(SlotMonitor.class);

  /**
   * One measurement; {@code slotLagBytes} is -1 when the slot does not exist (no position is stored
   * yet on MariaDB).
   */
  public record Look(long slotLagBytes, Duration oldestPendingAge, long pending, boolean lagging) {
    static final Look NONE = new Look(-1, Duration.ZERO, 0, false);
  }

  private final DataSource dataSource;
  private final CdcDialect dialect;
  private final String slot;
  private final long alertBytes;
  private final Duration alertAge;
  private final AtomicReference<Look> last = new AtomicReference<>(Look.NONE);

  public SlotMonitor(
      DataSource dataSource,
      CdcDialect dialect,
      String slot,
      long alertBytes,
      Duration alertAge,
      MeterRegistry meters,
      IntSupplier heldAggregates) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.slot = slot;
    this.alertBytes = alertBytes;
    this.alertAge = alertAge;
    Gauge.builder("tandem.cdc.slot.lag", last, l -> l.get().slotLagBytes())
        .description("WAL the replication slot holds beyond its confirmed position")
        .baseUnit("bytes")
        .tag("slot", slot)
        .register(meters);
    Gauge.builder("tandem.cdc.lag", last, l -> l.get().oldestPendingAge().toMillis() / 1000.0)
        .description("age of the oldest outbox row still to publish")
        .baseUnit("seconds")
        .tag("slot", slot)
        .register(meters);
    Gauge.builder("tandem.cdc.pending", last, l -> l.get().pending())
        .description("outbox rows still to publish")
        .tag("slot", slot)
        .register(meters);
    Gauge.builder("tandem.cdc.lagging", last, l -> l.get().lagging() ? 1 : 0)
        .description("1 while slot lag or the oldest row's age is above its alert threshold")
        .tag("slot", slot)
        .register(meters);
    Gauge.builder("tandem.cdc.held.aggregates", heldAggregates::getAsInt)
        .description("aggregates whose events wait in the database for the drain")
        .tag("slot", slot)
        .register(meters);
  }

  public Look last() {
    return last.get();
  }

  /**
   * Whether a client streams now: on PostgreSQL from the slot, on MariaDB from the binlog (a Binlog
   * Dump thread: without it, the relay's start returned before the connector had its position, and
   * a row committed in that window waited for the stream's first batch — up to a heartbeat).
   */
  public boolean slotActive() {
    if (!dialect.replicationSlots()) {
      return binlogReaders() > 0;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.SLOT)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean("active");
      }
    } catch (SQLException e) {
      throw new JdbcException("reading replication slot " + slot + " failed", e);
    }
  }

  private long binlogReaders() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(MariaDbCdcDialect.BINLOG_READERS);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong("readers");
    } catch (SQLException e) {
      throw new JdbcException("reading the binlog's readers failed", e);
    }
  }

  public Look look() {
    long lagBytes = -1;
    long pending;
    Duration age = Duration.ZERO;
    try (Connection c = dataSource.getConnection()) {
      if (dialect.replicationSlots()) {
        try (PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.SLOT)) {
          ps.setString(1, slot);
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              lagBytes = rs.getLong("lag_bytes");
            }
          }
        }
      } else {
        lagBytes = BinlogLag.look(c, slot).lagBytes();
      }
      try (PreparedStatement ps = c.prepareStatement(dialect.backlog());
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        pending = rs.getLong("pending");
        Instant oldest = dialect.jdbc().readInstant(rs, "oldest");
        Instant now = dialect.jdbc().readInstant(rs, "db_now");
        if (oldest != null && now.isAfter(oldest)) {
          age = Duration.between(oldest, now);
        }
      }
    } catch (SQLException e) {
      throw new JdbcException("measuring the CDC relay's lag failed", e);
    }
    boolean lagging = lagBytes > alertBytes || age.compareTo(alertAge) > 0;
    Look look = new Look(lagBytes, age, pending, lagging);
    Look before = last.getAndSet(look);
    if (lagging && !before.lagging()) {
      log.warn(
          "CDC slot {} is lagging: it holds {} bytes of WAL (alert above {}), the oldest"
              + " unpublished row is {} s old (alert above {} s), {} rows wait",
          slot,
          lagBytes,
          alertBytes,
          age.toSeconds(),
          alertAge.toSeconds(),
          pending);
    } else if (!lagging && before.lagging()) {
      log.info(
          "CDC slot {} caught up: {} bytes of WAL held, {} rows wait", slot, lagBytes, pending);
    }
    return look;
  }
}
