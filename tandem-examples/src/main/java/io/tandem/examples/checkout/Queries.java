package io.tandem.examples.checkout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Read-only statements without parameters, for reports and invariant checks. */
final class Queries {
  private Queries() {}

  static long single(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** {@code SELECT key, count ...}: the counts by key. */
  static Map<String, Long> countBy(DataSource ds, String sql) throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        counts.put(rs.getString(1), rs.getLong(2));
      }
    }
    return counts;
  }

  /** Every row, each column as text (null stays null). */
  static List<String[]> rows(DataSource ds, String sql) throws SQLException {
    List<String[]> rows = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        String[] row = new String[columns];
        for (int i = 0; i < columns; i++) {
          row[i] = rs.getString(i + 1);
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
