package io.tandem.cdc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Where a CDC relay's change stream stands, as the database shows it: PostgreSQL's replication
 * slot, or on MariaDB the stored binlog position against the server's ({@link BinlogLag}).
 *
 * @param exists the slot exists (MariaDB: a position is stored)
 * @param active a client streams from it now
 * @param pid the streaming backend (MariaDB: the binlog reader's thread), if any
 * @param position the confirmed (stored) position, if any
 * @param serverPosition the server's write position
 * @param lagBytes bytes written after the position, -1 without one
 * @param missing why there is no position, for an operator
 * @param inactive why nothing streams, for an operator (null while it streams)
 */
public record StreamPosition(
    boolean exists,
    boolean active,
    Optional<Long> pid,
    Optional<String> position,
    Optional<String> serverPosition,
    long lagBytes,
    String missing,
    String inactive) {

  /** Reads the position of {@code slot}; on MariaDB {@code relayBeat} judges liveness. */
  public static StreamPosition read(
      Connection c,
      CdcDialect dialect,
      String slot,
      Instant relayBeat,
      Instant dbNow,
      Duration staleBeat)
      throws SQLException {
    return dialect.replicationSlots()
        ? postgres(c, slot)
        : mariaDb(c, slot, relayBeat, dbNow, staleBeat);
  }

  private static StreamPosition postgres(Connection c, String slot) throws SQLException {
    String server;
    try (PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.CURRENT_LSN);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      server = rs.getString(1);
    }
    try (PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.SLOT)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new StreamPosition(
              false,
              false,
              Optional.empty(),
              Optional.empty(),
              Optional.of(server),
              -1,
              "no replication slot '" + slot + "': no CDC relay has started on it yet",
              null);
        }
        boolean active = rs.getBoolean("active");
        long p = rs.getLong("active_pid");
        Optional<Long> pid = rs.wasNull() ? Optional.empty() : Optional.of(p);
        return new StreamPosition(
            true,
            active,
            pid,
            Optional.ofNullable(rs.getString("confirmed_flush_lsn")),
            Optional.of(server),
            rs.getLong("lag_bytes"),
            null,
            active
                ? null
                : "no client streams from slot '"
                    + slot
                    + "': the CDC relay is stopped, and the slot holds WAL until it runs again"
                    + " (or drop the slot if CDC is no longer used)");
      }
    }
  }

  private static StreamPosition mariaDb(
      Connection c, String slot, Instant relayBeat, Instant dbNow, Duration staleBeat)
      throws SQLException {
    BinlogLag.Look look = BinlogLag.look(c, slot);
    long readers;
    Optional<Long> thread;
    try (PreparedStatement ps = c.prepareStatement(MariaDbCdcDialect.BINLOG_READERS);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      long id = rs.getLong("thread_id");
      thread = rs.wasNull() ? Optional.empty() : Optional.of(id);
      readers = rs.getLong("readers");
    }
    Duration beatAge =
        relayBeat == null || dbNow == null ? null : Duration.between(relayBeat, dbNow);
    boolean fresh = beatAge != null && beatAge.compareTo(staleBeat) <= 0;
    boolean active = look.stored().isPresent() && fresh && readers > 0;
    String inactive = null;
    if (look.storedFilePurged()) {
      inactive =
          "the binlog file of the stored position "
              + look.stored().get()
              + " was purged: the relay cannot resume from it. Keep binlog files longer"
              + " (binlog_expire_logs_seconds), and to go on, delete the position (DELETE FROM"
              + " tandem_cdc_offset WHERE store_name = '"
              + slot
              + "'): the relay then starts at the binlog's end and its start-up drain publishes"
              + " every row not yet published";
    } else if (!active) {
      inactive =
          "no CDC relay streams the binlog for '"
              + slot
              + "' (relay heartbeat "
              + (beatAge == null ? "never" : beatAge.toSeconds() + " s ago")
              + ", "
              + readers
              + " binlog readers): the relay is stopped; MariaDB keeps the binlog files it"
              + " needs to resume only for binlog_expire_logs_seconds";
    }
    return new StreamPosition(
        look.stored().isPresent(),
        active && !look.storedFilePurged(),
        active ? thread : Optional.empty(),
        look.stored(),
        Optional.of(look.server()),
        look.lagBytes(),
        "no binlog position stored for '" + slot + "': no CDC relay has started on it yet",
        inactive);
  }
}
