package io.tandem.cdc.internal;

import io.tandem.cdc.CdcSetupException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, before the engine starts, everything a CDC relay needs of PostgreSQL, and stops the start
 * with one message saying what to change: {@code wal_level}, the REPLICATION privilege, the
 * replication slot (not held by another client, made for this database with pgoutput) and the
 * publication (covering the outbox and the heartbeat table, publishing inserts). Creates the
 * publication when asked to.
 */
public final class SetupCheck {
  private static final Logger log = LoggerFactory.getLogger(SetupCheck.class);

  private SetupCheck() {}

  /** The schema the relay reads the outbox in: the connection's current schema. */
  public record Location(String schema, String database) {}

  public static Location verify(
      Connection c, String slot, String publication, boolean createPublication)
      throws SQLException {
    Location location = location(c);
    walLevel(c);
    privilege(c);
    slot(c, slot, location);
    publication(c, publication, location, createPublication);
    return location;
  }

  static Location location(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(PostgresCdcDialect.CURRENT_SCHEMA)) {
      rs.next();
      if (rs.getString(1) == null) {
        throw new CdcSetupException(
            "The connection has no current schema (search_path names none that exists): set the"
                + " search_path (or currentSchema in the JDBC URL) to the schema that holds"
                + " tandem_outbox.");
      }
      return new Location(rs.getString(1), rs.getString(2));
    }
  }

  private static void walLevel(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(PostgresCdcDialect.WAL_LEVEL)) {
      rs.next();
      String level = rs.getString(1);
      if (!"logical".equals(level)) {
        throw new CdcSetupException(
            "PostgreSQL's wal_level is '"
                + level
                + "', and the CDC relay needs 'logical' to decode the outbox's inserts from the"
                + " WAL: run ALTER SYSTEM SET wal_level = logical (or set it in postgresql.conf)"
                + " and restart PostgreSQL.");
      }
    }
  }

  private static void privilege(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(PostgresCdcDialect.CAN_REPLICATE)) {
      if (rs.next() && !rs.getBoolean(2)) {
        String user = rs.getString(1);
        throw new CdcSetupException(
            "PostgreSQL user '"
                + user
                + "' lacks the REPLICATION privilege the CDC relay needs to stream changes: run"
                + " ALTER ROLE "
                + user
                + " REPLICATION as a superuser, or connect the relay as a user that has it.");
      }
    }
  }

  private static void slot(Connection c, String slot, Location location) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.SLOT)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return; // Debezium creates it
        }
        if (!"logical".equals(rs.getString("slot_type"))
            || !"pgoutput".equals(rs.getString("plugin"))) {
          throw new CdcSetupException(
              "Replication slot '"
                  + slot
                  + "' exists but is a "
                  + rs.getString("slot_type")
                  + " slot with plugin '"
                  + rs.getString("plugin")
                  + "'; the CDC relay needs a logical slot with pgoutput: choose another slot"
                  + " name, or drop this one (SELECT pg_drop_replication_slot('"
                  + slot
                  + "')) if nothing uses it.");
        }
        if (!location.database().equals(rs.getString("database"))) {
          throw new CdcSetupException(
              "Replication slot '"
                  + slot
                  + "' belongs to database '"
                  + rs.getString("database")
                  + "', not '"
                  + location.database()
                  + "': give this relay a slot name of its own.");
        }
        if (rs.getBoolean("active")) {
          String from = rs.getString("client_addr");
          throw new CdcSetupException(
              "Replication slot '"
                  + slot
                  + "' is in use by another client (PostgreSQL backend pid "
                  + rs.getLong("active_pid")
                  + (from == null ? "" : ", from " + from)
                  + (rs.getString("application_name") == null
                          || rs.getString("application_name").isEmpty()
                      ? ""
                      : ", application '" + rs.getString("application_name") + "'")
                  + "): another CDC relay is probably running on it. A slot has one reader at a"
                  + " time: stop that relay, or give this one its own slot name.");
        }
      }
    }
  }

  private static void publication(
      Connection c, String publication, Location location, boolean create) throws SQLException {
    boolean exists;
    boolean allTables = false;
    boolean inserts = false;
    try (PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.PUBLICATION)) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        exists = rs.next();
        if (exists) {
          allTables = rs.getBoolean("puballtables");
          inserts = rs.getBoolean("pubinsert");
        }
      }
    }
    if (!exists) {
      if (!create) {
        throw new CdcSetupException(
            "Publication '"
                + publication
                + "' does not exist in database '"
                + location.database()
                + "': run `tandem migrate --cdc-publication "
                + publication
                + "`, or "
                + PostgresReplicationSql.createPublication(publication)
                + ", or let the relay create it (createPublication(true)).");
      }
      try (Statement s = c.createStatement()) {
        s.execute(PostgresReplicationSql.createPublication(publication));
      }
      log.info("created publication {} for {}.tandem_outbox", publication, location.schema());
      return;
    }
    if (!inserts) {
      throw new CdcSetupException(
          "Publication '"
              + publication
              + "' does not publish inserts, and the CDC relay reads the outbox's inserts: run"
              + " ALTER PUBLICATION "
              + publication
              + " SET (publish = 'insert').");
    }
    Set<String> covered = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(PostgresReplicationSql.PUBLISHED_TABLES)) {
      ps.setString(1, publication);
      ps.setString(2, location.schema());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          covered.add(rs.getString(1));
        }
      }
    }
    for (String table : new String[] {"tandem_outbox", "tandem_cdc_heartbeat"}) {
      if (!covered.contains(table)) {
        throw new CdcSetupException(
            "Publication '"
                + publication
                + "' does not cover "
                + location.schema()
                + "."
                + table
                + (allTables ? " (FOR ALL TABLES, yet the table is not listed)" : "")
                + ", so the CDC relay would see none of its rows: run ALTER PUBLICATION "
                + publication
                + " ADD TABLE "
                + location.schema()
                + "."
                + table
                + ", or name a publication that covers it.");
      }
    }
  }
}
