package io.tandem.cdc.internal;

import io.tandem.cdc.CdcSetupException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Checks, before the engine starts, everything a CDC relay needs of MariaDB, and stops the start
 * with one message saying what to change: the binary log on, {@code binlog_format = ROW}, {@code
 * binlog_row_image = FULL}, and the privileges Debezium's MariaDB connector uses (REPLICATION SLAVE
 * to read the binlog, REPLICATION CLIENT — BINLOG MONITOR since 10.5 — to find its position, RELOAD
 * for the schema snapshot's brief lock, SELECT on the outbox's database).
 */
public final class MariaDbSetupCheck {
  private MariaDbSetupCheck() {}

  public static SetupCheck.Location verify(Connection c) throws SQLException {
    String database;
    String user;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(MariaDbCdcDialect.BINLOG_SETTINGS)) {
      rs.next();
      boolean logBin = rs.getBoolean(1);
      String format = rs.getString(2);
      String image = rs.getString(3);
      database = rs.getString(4);
      user = rs.getString(5);
      if (database == null) {
        throw new CdcSetupException(
            "The MariaDB JDBC URL names no database: name the one that holds tandem_outbox"
                + " (jdbc:mariadb://host:3306/<database>).");
      }
      if (!logBin) {
        throw new CdcSetupException(
            "MariaDB's binary log is off (log_bin = OFF), and the CDC relay reads the outbox's"
                + " inserts from it: start the server with log_bin (log-bin, binlog_format = ROW,"
                + " binlog_row_image = FULL and a server_id in the [mariadb] section of my.cnf)"
                + " and restart MariaDB.");
      }
      if (!"ROW".equalsIgnoreCase(format)) {
        throw new CdcSetupException(
            "MariaDB's binlog_format is '"
                + format
                + "', and the CDC relay needs 'ROW' (the rows themselves, not the statements): run"
                + " SET GLOBAL binlog_format = 'ROW' and set binlog_format = ROW in my.cnf so that"
                + " it survives a restart; sessions opened before keep their format until they"
                + " reconnect.");
      }
      if (!"FULL".equalsIgnoreCase(image)) {
        throw new CdcSetupException(
            "MariaDB's binlog_row_image is '"
                + image
                + "', and the CDC relay needs 'FULL' (every column of an inserted row): run SET"
                + " GLOBAL binlog_row_image = 'FULL' and set it in my.cnf.");
      }
    }
    privileges(c, user, database);
    return new SetupCheck.Location(database, database);
  }

  private static void privileges(Connection c, String user, String database) throws SQLException {
    Set<String> granted = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(MariaDbCdcDialect.PRIVILEGES);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        granted.add(rs.getString(1).toUpperCase(Locale.ROOT));
      }
    }
    List<String> missing = new ArrayList<>();
    if (!granted.contains("REPLICATION SLAVE")) {
      missing.add("REPLICATION SLAVE");
    }
    if (!granted.contains("REPLICATION CLIENT") && !granted.contains("BINLOG MONITOR")) {
      missing.add("REPLICATION CLIENT");
    }
    if (!granted.contains("RELOAD")) {
      missing.add("RELOAD");
    }
    boolean select = granted.contains("SELECT") || schemaSelect(c, database);
    if (!missing.isEmpty() || !select) {
      String onAll = String.join(", ", missing);
      String account = quoted(user);
      StringBuilder fix = new StringBuilder();
      if (!missing.isEmpty()) {
        fix.append("GRANT ").append(onAll).append(" ON *.* TO ").append(account);
      }
      if (!select) {
        if (!fix.isEmpty()) {
          fix.append("; ");
        }
        fix.append("GRANT SELECT ON `").append(database).append("`.* TO ").append(account);
      }
      List<String> all = new ArrayList<>(missing);
      if (!select) {
        all.add("SELECT on " + database);
      }
      throw new CdcSetupException(
          "MariaDB user "
              + account
              + " lacks "
              + String.join(", ", all)
              + ", which the CDC relay needs to read the binlog: run "
              + fix
              + " as an administrator, or connect the relay as a user that has them.");
    }
  }

  private static boolean schemaSelect(Connection c, String database) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT 1 FROM information_schema.schema_privileges
             WHERE grantee = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''',
                                    SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')
               AND table_schema = ? AND privilege_type = 'SELECT'
            """)) {
      ps.setString(1, database);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static String quoted(String user) {
    int at = user.lastIndexOf('@');
    return at < 0
        ? "'" + user + "'"
        : "'" + user.substring(0, at) + "'@'" + user.substring(at + 1) + "'";
  }
}
