package io.tandem.cdc;

import io.tandem.cdc.internal.CdcDialect;
import io.tandem.cdc.internal.MariaDbCdcDialect;
import io.tandem.cdc.internal.PostgresCdcDialect;
import io.tandem.cdc.internal.PostgresReplicationSql;
import io.tandem.cdc.internal.StreamPosition;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The operator's side of the CDC relay, on the database alone, PostgreSQL or MariaDB: its status
 * (position, lag, liveness), whether the server can stream changes at all, creating its publication
 * ({@code tandem migrate --cdc-publication}, PostgreSQL), dropping a position that is no longer
 * used.
 *
 * <pre>{@code
 * CdcStatus s = new CdcOperations(dataSource).status("tandem_cdc",
 *     CdcRelay.DEFAULT_LAG_ALERT_BYTES, Duration.ofMinutes(5));
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class CdcOperations {
  /**
   * MariaDB has no slot that shows a reader: a relay counts as streaming while a binlog reader runs
   * and the relay beat within this time (three default monitoring intervals).
   */
  public static final Duration MARIADB_STALE_HEARTBEAT =
      Duration.ofSeconds(3 * CdcRelay.DEFAULT_MONITOR_SECONDS);

  private final DataSource dataSource;

  public CdcOperations(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * Why the server cannot stream changes to a CDC relay, if it cannot: PostgreSQL's {@code
   * wal_level} other than {@code logical}, MariaDB's binary log off or not in ROW format.
   */
  public Optional<String> streamingUnavailable() {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      if (CdcDialect.of(Dialect.of(c)).replicationSlots()) {
        try (ResultSet rs = s.executeQuery(PostgresCdcDialect.WAL_LEVEL)) {
          rs.next();
          String level = rs.getString(1);
          return "logical".equals(level)
              ? Optional.empty()
              : Optional.of(
                  "wal_level is '"
                      + level
                      + "', and the CDC relay needs 'logical': set wal_level = logical and"
                      + " restart PostgreSQL");
        }
      }
      try (ResultSet rs = s.executeQuery(MariaDbCdcDialect.BINLOG_SETTINGS)) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return Optional.of("MariaDB's binary log is off (log_bin = OFF): start it with log_bin");
        }
        return "ROW".equalsIgnoreCase(rs.getString(2))
            ? Optional.empty()
            : Optional.of(
                "MariaDB's binlog_format is '" + rs.getString(2) + "': the CDC relay needs ROW");
      }
    } catch (SQLException e) {
      throw new JdbcException("reading whether the server can stream changes failed", e);
    }
  }

  /**
   * Creates the publication the CDC relay reads ({@code tandem_outbox} and {@code
   * tandem_cdc_heartbeat}, inserts only) unless it exists. PostgreSQL only.
   *
   * @return true if it was created
   */
  public boolean createPublication(String publication) {
    PostgresCdcDialect.identifier("publication", publication);
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.PUBLICATION)) {
        ps.setString(1, publication);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return false;
          }
        }
      }
      try (Statement s = c.createStatement()) {
        s.execute(PostgresReplicationSql.createPublication(publication));
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return true;
    } catch (SQLException e) {
      throw new JdbcException("creating publication " + publication + " failed", e);
    }
  }

  /** Drops a replication slot no relay reads any more, so it stops holding WAL. PostgreSQL. */
  public void dropSlot(String slot) {
    PostgresCdcDialect.identifier("slot", slot);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.DROP_SLOT)) {
      ps.setString(1, slot);
      ps.execute();
    } catch (SQLException e) {
      throw new JdbcException("dropping replication slot " + slot + " failed", e);
    }
  }

  /**
   * Ends the client still streaming from {@code slot} (a relay that was just stopped lets go a
   * moment later) and drops the slot, retrying until it is gone or {@code timeout} passed.
   * PostgreSQL only.
   *
   * @return true if no slot of that name is left
   */
  public boolean dropSlotOnceReleased(String slot, Duration timeout) throws InterruptedException {
    PostgresCdcDialect.identifier("slot", slot);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try (Connection c = dataSource.getConnection()) {
        run(c, PostgresReplicationSql.END_SLOT_CLIENT, slot);
        run(c, PostgresReplicationSql.DROP_INACTIVE_SLOT, slot);
        if (!run(c, PostgresReplicationSql.SLOT_EXISTS, slot)) {
          return true;
        }
      } catch (SQLException e) {
        if (System.nanoTime() > deadline) {
          throw new JdbcException("dropping replication slot " + slot + " failed", e);
        }
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(100);
    }
  }

  private static boolean run(Connection c, String sql, String slot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        boolean any = false;
        while (rs.next()) {
          any = true;
        }
        return any;
      }
    }
  }

  /** The status of the relay on {@code slot}, judged against the given alert thresholds. */
  public CdcStatus status(String slot, long lagAlertBytes, Duration lagAlertAge) {
    PostgresCdcDialect.identifier("slot", slot);
    try (Connection c = dataSource.getConnection()) {
      CdcDialect dialect = CdcDialect.of(Dialect.of(c));
      Dialect jdbc = dialect.jdbc();
      String relayId = null;
      Instant beat = null;
      Instant published = null;
      Instant flushed = null;
      Instant heartbeatRow = null;
      Instant dbNow = null;
      try (PreparedStatement ps =
          c.prepareStatement(
              dialect.replicationSlots() ? PostgresCdcDialect.RELAY : MariaDbCdcDialect.RELAY)) {
        ps.setString(1, slot);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            relayId = rs.getString("relay_id");
            beat = jdbc.readInstant(rs, "heartbeat_at");
            published = jdbc.readInstant(rs, "last_published_at");
            flushed = jdbc.readInstant(rs, "last_flushed_at");
            heartbeatRow = jdbc.readInstant(rs, "last_heartbeat_row_at");
            dbNow = jdbc.readInstant(rs, "db_now");
          }
        }
      }
      StreamPosition stream =
          StreamPosition.read(c, dialect, slot, beat, dbNow, MARIADB_STALE_HEARTBEAT);
      long pending;
      Duration age = Duration.ZERO;
      try (PreparedStatement ps = c.prepareStatement(dialect.backlog());
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        pending = rs.getLong("pending");
        Instant oldest = jdbc.readInstant(rs, "oldest");
        Instant now = jdbc.readInstant(rs, "db_now");
        if (oldest != null && now.isAfter(oldest)) {
          age = Duration.between(oldest, now);
        }
      }
      boolean lagging = stream.lagBytes() > lagAlertBytes || age.compareTo(lagAlertAge) > 0;
      String problem =
          !stream.exists()
              ? stream.missing()
              : stream.inactive() != null
                  ? stream.inactive()
                  : lagging ? lagText(stream.lagBytes(), lagAlertBytes, age, lagAlertAge) : null;
      return new CdcStatus(
          slot,
          stream.exists(),
          stream.active(),
          stream.pid(),
          stream.position(),
          stream.lagBytes(),
          Optional.ofNullable(relayId),
          Optional.ofNullable(beat),
          Optional.ofNullable(published),
          Optional.ofNullable(flushed),
          Optional.ofNullable(heartbeatRow),
          pending,
          age,
          lagging || (stream.exists() && !stream.active()),
          Optional.ofNullable(problem),
          dialect.replicationSlots() ? "postgresql" : "mariadb",
          stream.serverPosition());
    } catch (SQLException e) {
      throw new JdbcException("reading the CDC relay's status failed", e);
    }
  }

  private static String lagText(long bytes, long alertBytes, Duration age, Duration alertAge) {
    return "lagging: "
        + bytes
        + " bytes behind the server's position (alert above "
        + alertBytes
        + "), oldest unpublished row "
        + age.toSeconds()
        + " s old (alert above "
        + alertAge.toSeconds()
        + " s)";
  }
}
