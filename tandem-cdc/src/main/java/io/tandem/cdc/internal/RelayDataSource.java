package io.tandem.cdc.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** The relay's plain data source of its JDBC URL, when it is given none, and its default id. */
public final class RelayDataSource {
  private RelayDataSource() {}

  /** A non-pooling data source of a {@code jdbc:postgresql:} or {@code jdbc:mariadb:} URL. */
  public static DataSource of(String jdbcUrl, String user, String password) {
    if (jdbcUrl.startsWith("jdbc:mariadb:")) {
      try {
        MariaDbDataSource ds = new MariaDbDataSource(jdbcUrl);
        if (user != null) {
          ds.setUser(user);
        }
        if (password != null) {
          ds.setPassword(password);
        }
        return ds;
      } catch (SQLException e) {
        throw new IllegalArgumentException("jdbcUrl is not a valid MariaDB URL: " + e.getMessage());
      }
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    if (user != null) {
      ds.setUser(user);
    }
    if (password != null) {
      ds.setPassword(password);
    }
    return ds;
  }

  /** This machine's host name, or {@code unknown}. */
  public static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** {@code cdc-<host>-<pid>}. */
  public static String defaultRelayId() {
    return "cdc-" + host() + "-" + ProcessHandle.current().pid();
  }
}
