package io.tandem.examples.choreography;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Small JDBC helpers of the example services; the SQL itself runs on PostgreSQL and MariaDB. */
final class Sql {
  private Sql() {}

  /** Runs an update with positional parameters on the caller's connection; the row count. */
  static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      return ps.executeUpdate();
    }
  }

  /** The first column of the first row as a number; 0 when there is no row or it is null. */
  static long number(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  static long number(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return number(c, sql);
    }
  }

  /** Every row, each column as text. */
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

  /** Runs DDL statements in order. */
  static void execute(DataSource ds, String... statements) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }
}
