package io.tandem.inbox.contract;

import io.tandem.core.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The business side effect of the contract's handlers: one row per application, deliberately
 * without a unique key, so that a doubled effect shows up as two rows instead of an error.
 */
final class ContractEffects {
  private ContractEffects() {}

  static void create(DataSource ds, boolean postgres) throws SQLException {
    String sql =
        postgres
            ? "CREATE TABLE IF NOT EXISTS contract_effect (seq bigserial PRIMARY KEY,"
                + " consumer text NOT NULL, aggregate_id text NOT NULL, version bigint NOT NULL,"
                + " event_id text NOT NULL)"
            : "CREATE TABLE IF NOT EXISTS contract_effect (seq bigint AUTO_INCREMENT PRIMARY KEY,"
                + " consumer varchar(255) NOT NULL, aggregate_id varchar(255) NOT NULL,"
                + " version bigint NOT NULL, event_id varchar(64) NOT NULL)";
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static void apply(Connection c, String consumer, Event e) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO contract_effect (consumer, aggregate_id, version, event_id)"
                + " VALUES (?, ?, ?, ?)")) {
      ps.setString(1, consumer);
      ps.setString(2, e.aggregateId());
      ps.setLong(3, e.aggregateVersion());
      ps.setString(4, e.eventId().toString());
      ps.executeUpdate();
    }
  }

  static long count(DataSource ds, String consumer) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM contract_effect WHERE consumer = ?")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Event ids applied more than once. */
  static List<String> doubled(DataSource ds, String consumer) throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT event_id FROM contract_effect WHERE consumer = ?"
                    + " GROUP BY event_id HAVING count(*) > 1")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
    }
    return ids;
  }

  /** The versions applied per aggregate, in the order they were applied. */
  static Map<String, List<Long>> versionsInApplyOrder(DataSource ds, String consumer)
      throws SQLException {
    Map<String, List<Long>> versions = new LinkedHashMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT aggregate_id, version FROM contract_effect WHERE consumer = ?"
                    + " ORDER BY seq")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          versions.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getLong(2));
        }
      }
    }
    return versions;
  }
}
