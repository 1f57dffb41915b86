package io.tandem.cli;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The dashboard's audit trail ({@code tandem_dashboard_action}): every action an operator took,
 * with who, from where, on what, and the outcome. Thread-safe (each call on its own connection).
 */
final class DashboardActionLog {
  private static final String DASHBOARD_ACTION_INSERT =
      """
      INSERT INTO tandem_dashboard_action (operator, remote, action, target, outcome, detail)
      VALUES (?, ?, ?, ?, ?, ?)
      """;

  private static final String DASHBOARD_ACTION_LIST =
      """
      SELECT id, acted_at, operator, remote, action, target, outcome, detail
        FROM tandem_dashboard_action
       ORDER BY id DESC
       LIMIT ?
      """;

  private final DataSource dataSource;
  private final Dialect dialect;

  DashboardActionLog(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  void record(
      String operator, String remote, String action, String target, String outcome, String detail) {
    try {
      Transactions.inTransaction(
          dataSource,
          c -> {
            try (PreparedStatement ps = c.prepareStatement(DASHBOARD_ACTION_INSERT)) {
              ps.setString(1, clip(operator, 255));
              ps.setString(2, clip(remote, 255));
              ps.setString(3, action);
              ps.setString(4, target);
              ps.setString(5, outcome);
              ps.setString(6, detail);
              ps.executeUpdate();
            }
            return null;
          });
    } catch (SQLException e) {
      throw new JdbcException("recording the dashboard action failed", e);
    }
  }

  /** The last 100 actions, newest first. */
  List<Map<String, Object>> actions() {
    try {
      return Transactions.inTransaction(
          dataSource,
          c -> {
            List<Map<String, Object>> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(DASHBOARD_ACTION_LIST)) {
              ps.setInt(1, 100);
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  Map<String, Object> a = new LinkedHashMap<>();
                  a.put("id", rs.getLong("id"));
                  a.put("at", String.valueOf(dialect.readInstant(rs, "acted_at")));
                  a.put("operator", rs.getString("operator"));
                  a.put("remote", rs.getString("remote"));
                  a.put("action", rs.getString("action"));
                  a.put("target", rs.getString("target"));
                  a.put("outcome", rs.getString("outcome"));
                  a.put("detail", rs.getString("detail"));
                  out.add(a);
                }
              }
            }
            return out;
          });
    } catch (SQLException e) {
      throw new JdbcException("reading the dashboard's actions failed", e);
    }
  }

  private static String clip(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max);
  }
}
