package io.tandem.cdc.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.cdc.CdcSetupException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How far a CDC relay's stored binlog position is behind MariaDB's: the bytes of binlog written
 * after it, counted across files ({@code SHOW BINARY LOGS}) up to the server's position ({@code
 * SHOW MASTER STATUS}). The stored position is the one Debezium resumes from (the start of the
 * transaction it was in), so the figure errs on the high side by at most one transaction.
 */
public final class BinlogLag {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One measurement.
   *
   * @param stored the stored position ({@code file:pos}), if a relay stored one
   * @param server the server's write position ({@code file:pos})
   * @param lagBytes binlog bytes after the stored position; -1 without one
   * @param storedFilePurged whether the stored position's file is gone from the server
   */
  public record Look(
      Optional<String> stored, String server, long lagBytes, boolean storedFilePurged) {}

  private BinlogLag() {}

  /** Reads the stored position of {@code storeName} and the server's binlog files. */
  public static Look look(Connection c, String storeName) throws SQLException {
    Optional<Position> stored = storedPosition(c, storeName);
    Map<String, Long> files = new LinkedHashMap<>();
    Position server;
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery(MariaDbCdcDialect.BINARY_LOGS)) {
        while (rs.next()) {
          files.put(rs.getString(1), rs.getLong(2));
        }
      }
      try (ResultSet rs = s.executeQuery(MariaDbCdcDialect.MASTER_STATUS)) {
        if (!rs.next()) {
          throw new CdcSetupException(
              "MariaDB's binary log is off (SHOW MASTER STATUS is empty): the CDC relay reads the"
                  + " outbox's inserts from it; start the server with log_bin, binlog_format = ROW"
                  + " and binlog_row_image = FULL, and restart MariaDB.");
        }
        server = new Position(rs.getString(1), rs.getLong(2));
      }
    } catch (SQLException e) {
      if (e.getErrorCode() == 1227 || e.getErrorCode() == 1381) {
        // 1227: access denied (no BINLOG MONITOR); 1381: binary logging disabled
        throw new CdcSetupException(
            e.getErrorCode() == 1381
                ? "MariaDB's binary log is off (log_bin = OFF): the CDC relay reads the outbox's"
                    + " inserts from it; start the server with log_bin, binlog_format = ROW and"
                    + " binlog_row_image = FULL, and restart MariaDB."
                : "reading MariaDB's binlog position needs BINLOG MONITOR (REPLICATION CLIENT):"
                    + " GRANT REPLICATION CLIENT ON *.* TO the user tandem connects as ("
                    + e.getMessage()
                    + ")",
            e);
      }
      throw e;
    }
    if (stored.isEmpty()) {
      return new Look(Optional.empty(), server.toString(), -1, false);
    }
    Position from = stored.get();
    boolean purged = !files.containsKey(from.file());
    return new Look(
        Optional.of(from.toString()),
        server.toString(),
        purged ? -1 : lag(from, server, files),
        purged);
  }

  /**
   * Bytes from {@code from} to {@code to}: the rest of from's file, the files between, to's part.
   */
  static long lag(Position from, Position to, Map<String, Long> files) {
    if (from.file().equals(to.file())) {
      return Math.max(0, to.pos() - from.pos());
    }
    long bytes = 0;
    boolean counting = false;
    for (Map.Entry<String, Long> file : files.entrySet()) {
      if (file.getKey().equals(from.file())) {
        counting = true;
        bytes += Math.max(0, file.getValue() - from.pos());
      } else if (file.getKey().equals(to.file())) {
        return bytes + to.pos();
      } else if (counting) {
        bytes += file.getValue();
      }
    }
    return bytes + to.pos();
  }

  /** The {@code file} and {@code pos} of the store's offset value, if it has one. */
  static Optional<Position> storedPosition(Connection c, String storeName) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(MariaDbCdcDialect.INSTANCE.offsets())) {
      ps.setString(1, storeName);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Optional<Position> p = parse(rs.getString(2));
          if (p.isPresent()) {
            return p;
          }
        }
      }
    }
    return Optional.empty();
  }

  static Optional<Position> parse(String offsetValue) {
    if (offsetValue == null) {
      return Optional.empty();
    }
    try {
      JsonNode node = JSON.readTree(offsetValue);
      if (node != null && node.hasNonNull("file") && node.hasNonNull("pos")) {
        return Optional.of(new Position(node.get("file").asText(), node.get("pos").asLong()));
      }
    } catch (IOException e) {
      // not Connect's JSON: not a binlog position
    }
    return Optional.empty();
  }

  /** A binlog position. */
  record Position(String file, long pos) {
    @Override
    public String toString() {
      return file + ":" + pos;
    }
  }
}
