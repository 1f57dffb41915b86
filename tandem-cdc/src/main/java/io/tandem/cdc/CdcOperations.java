package io.tandem.cdc;

import io.tandem.cdc.internal.PostgresCdcDialect;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The operator's side of the CDC relay, on the database alone: its status (slot, lag, position,
 * liveness), creating its publication ({@code tandem migrate --cdc-publication}), dropping a slot
 * that is no longer used.
 *
 * <pre>{@code
 * CdcStatus s = new CdcOperations(dataSource).status("tandem_cdc",
 *     CdcRelay.DEFAULT_LAG_ALERT_BYTES, Duration.ofMinutes(5));
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class CdcOperations {
  private final DataSource dataSource;

  public CdcOperations(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * Creates the publication the CDC relay reads ({@code tandem_outbox} and {@code
   * tandem_cdc_heartbeat}, inserts only) unless it exists.
   *
   * @return true if it was created
   */
  public boolean createPublication(String publication) {
    PostgresCdcDialect.identifier("publication", publication);
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.PUBLICATION)) {
        ps.setString(1, publication);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return false;
          }
        }
      }
      try (Statement s = c.createStatement()) {
        s.execute(PostgresCdcDialect.createPublication(publication));
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return true;
    } catch (SQLException e) {
      throw new JdbcException("creating publication " + publication + " failed", e);
    }
  }

  /** Drops a replication slot no relay reads any more, so it stops holding WAL. */
  public void dropSlot(String slot) {
    PostgresCdcDialect.identifier("slot", slot);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.DROP_SLOT)) {
      ps.setString(1, slot);
      ps.execute();
    } catch (SQLException e) {
      throw new JdbcException("dropping replication slot " + slot + " failed", e);
    }
  }

  /** The status of the relay on {@code slot}, judged against the given alert thresholds. */
  public CdcStatus status(String slot, long lagAlertBytes, Duration lagAlertAge) {
    PostgresCdcDialect.identifier("slot", slot);
    try (Connection c = dataSource.getConnection()) {
      boolean exists = false;
      boolean active = false;
      Long pid = null;
      String lsn = null;
      long lagBytes = -1;
      try (PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.SLOT)) {
        ps.setString(1, slot);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            exists = true;
            active = rs.getBoolean("active");
            long p = rs.getLong("active_pid");
            pid = rs.wasNull() ? null : p;
            lsn = rs.getString("confirmed_flush_lsn");
            lagBytes = rs.getLong("lag_bytes");
          }
        }
      }
      String relayId = null;
      Instant beat = null;
      Instant published = null;
      Instant flushed = null;
      Instant heartbeatRow = null;
      try (PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.RELAY)) {
        ps.setString(1, slot);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            relayId = rs.getString("relay_id");
            beat = instant(rs, "heartbeat_at");
            published = instant(rs, "last_published_at");
            flushed = instant(rs, "last_flushed_at");
            heartbeatRow = instant(rs, "last_heartbeat_row_at");
          }
        }
      }
      long pending;
      Duration age = Duration.ZERO;
      try (PreparedStatement ps = c.prepareStatement(PostgresCdcDialect.BACKLOG);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        pending = rs.getLong("pending");
        Instant oldest = instant(rs, "oldest");
        Instant now = instant(rs, "db_now");
        if (oldest != null && now.isAfter(oldest)) {
          age = Duration.between(oldest, now);
        }
      }
      boolean lagging = lagBytes > lagAlertBytes || age.compareTo(lagAlertAge) > 0;
      String problem = null;
      if (!exists) {
        problem = "no replication slot '" + slot + "': no CDC relay has started on it yet";
      } else if (!active) {
        problem =
            "no client streams from slot '"
                + slot
                + "': the CDC relay is stopped, and the slot holds WAL until it runs again (or"
                + " drop the slot if CDC is no longer used)";
      } else if (lagging) {
        problem =
            "lagging: "
                + lagBytes
                + " bytes of WAL held (alert above "
                + lagAlertBytes
                + "), oldest unpublished row "
                + age.toSeconds()
                + " s old (alert above "
                + lagAlertAge.toSeconds()
                + " s)";
      }
      return new CdcStatus(
          slot,
          exists,
          active,
          Optional.ofNullable(pid),
          Optional.ofNullable(lsn),
          lagBytes,
          Optional.ofNullable(relayId),
          Optional.ofNullable(beat),
          Optional.ofNullable(published),
          Optional.ofNullable(flushed),
          Optional.ofNullable(heartbeatRow),
          pending,
          age,
          lagging || (exists && !active),
          Optional.ofNullable(problem));
    } catch (SQLException e) {
      throw new JdbcException("reading the CDC relay's status failed", e);
    }
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }
}
