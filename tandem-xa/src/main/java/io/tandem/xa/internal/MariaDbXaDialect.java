package io.tandem.xa.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.MariaDbDialect;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Two-phase commit's SQL for MariaDB and MySQL (XA statements). */
final class MariaDbXaDialect implements XaDialect {
  static final MariaDbXaDialect INSTANCE = new MariaDbXaDialect();

  private static final String XA_RECOVER = "XA RECOVER";

  // InnoDB transactions whose session is gone: on a server that survives disconnects with prepared
  // XA transactions, these are the detached prepared ones. MariaDB does not tie them to an xid.
  private static final String DETACHED_TRANSACTIONS =
      """
      SELECT t.trx_id, t.trx_rows_locked, t.trx_tables_locked,
             (SELECT count(*) FROM information_schema.innodb_lock_waits w
               WHERE w.blocking_trx_id = t.trx_id) AS blocked
        FROM information_schema.innodb_trx t
       WHERE NOT EXISTS (SELECT 1 FROM information_schema.processlist p
                          WHERE p.id = t.trx_mysql_thread_id)
      """;

  private static final String SETTINGS =
      "SELECT VERSION() AS version, @@GLOBAL.wsrep_on AS wsrep_on";

  private static final String SETTINGS_WITHOUT_WSREP = "SELECT VERSION() AS version";

  private static final String FORGET =
      "DELETE FROM tandem_xa_decision WHERE gtrid = ? AND decision = ? AND heuristic IS NULL";

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

  private MariaDbXaDialect() {}

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public Dialect sql() {
    return MariaDbDialect.INSTANCE;
  }

  @Override
  public Optional<String> sessionSetup() {
    return Optional.empty();
  }

  // INNODB_TRX, the only place that counts a transaction's modified rows, is a cache refreshed at
  // most every 100 ms: too stale to decide that a branch wrote nothing. Every branch counts as
  // writing.
  @Override
  public Optional<String> branchCheck() {
    return Optional.empty();
  }

  @Override
  public Optional<String> wakeOutboxRelays() {
    return Optional.empty();
  }

  @Override
  public Listing listPrepared(Connection connection) throws SQLException {
    List<byte[][]> xids = new ArrayList<>();
    List<Integer> formats = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(XA_RECOVER)) {
      while (rs.next()) {
        int g = rs.getInt("gtrid_length");
        int b = rs.getInt("bqual_length");
        byte[] data = rs.getBytes("data");
        formats.add(rs.getInt("formatID"));
        xids.add(new byte[][] {Arrays.copyOfRange(data, 0, g), Arrays.copyOfRange(data, g, g + b)});
      }
    }
    List<long[]> detached = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(DETACHED_TRANSACTIONS)) {
      while (rs.next()) {
        detached.add(
            new long[] {
              rs.getLong("trx_id"),
              rs.getLong("trx_rows_locked"),
              rs.getLong("trx_tables_locked"),
              rs.getLong("blocked")
            });
      }
    }
    // Locks can be tied to a branch only when there is exactly one of each.
    boolean attributable = xids.size() == 1 && detached.size() == 1;
    List<ListedBranch> branches = new ArrayList<>();
    for (int i = 0; i < xids.size(); i++) {
      Optional<TandemXid> tandem = TandemXid.from(formats.get(i), xids.get(i)[0], xids.get(i)[1]);
      List<String> locks = List.of();
      int blocked = -1;
      if (attributable) {
        long[] t = detached.get(0);
        locks =
            List.of(
                "InnoDB transaction "
                    + t[0]
                    + ": "
                    + t[1]
                    + " row lock(s) in "
                    + t[2]
                    + " table(s)");
        blocked = (int) t[3];
      }
      branches.add(
          new ListedBranch(
              tandem.map(TandemXid::toString).orElse(foreignText(formats.get(i), xids.get(i))),
              tandem,
              tandem.map(x -> x.global().beganAt()),
              Optional.empty(),
              locks,
              blocked));
    }
    Optional<String> note = Optional.empty();
    if (!attributable && !detached.isEmpty()) {
      long rows = detached.stream().mapToLong(t -> t[1]).sum();
      long blocked = detached.stream().mapToLong(t -> t[3]).sum();
      note =
          Optional.of(
              detached.size()
                  + " InnoDB transaction(s) without a session (prepared XA transactions) hold "
                  + rows
                  + " row lock(s) and block "
                  + blocked
                  + " session(s); MariaDB does not say which xid holds which");
    }
    return new Listing(branches, note);
  }

  private static String foreignText(int format, byte[][] xid) {
    return format + ":" + printable(xid[0]) + ":" + printable(xid[1]);
  }

  private static String printable(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0x20 || b > 0x7e || b == ':') {
        return "0x" + HexFormat.of().formatHex(bytes);
      }
    }
    return new String(bytes, StandardCharsets.US_ASCII);
  }

  @Override
  public List<String> startupProblems(Connection c, String participant, int maxConnections)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    String version;
    String wsrep = null;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(SETTINGS)) {
      rs.next();
      version = rs.getString("version");
      wsrep = rs.getString("wsrep_on");
    } catch (SQLException noWsrepVariable) { // MySQL, or a MariaDB built without Galera
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(SETTINGS_WITHOUT_WSREP)) {
        rs.next();
        version = rs.getString("version");
      }
    }
    problems.addAll(problemsOf(participant, version, wsrep));
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(XA_RECOVER)) {
      while (rs.next()) {
        // listing works
      }
    } catch (SQLException e) {
      if (isPrivilegeError(e)) {
        problems.add(
            "participant '"
                + participant
                + "': this user may not run XA RECOVER ("
                + e.getMessage()
                + "), so in-doubt branches could not be found after a crash. On MySQL 8: GRANT"
                + " XA_RECOVER_ADMIN ON *.* TO the coordinator's user.");
      } else {
        throw e;
      }
    }
    return problems;
  }

  /** The problems a server's version and Galera setting make (a pure function, for tests). */
  static List<String> problemsOf(String participant, String version, String wsrepOn) {
    List<String> problems = new ArrayList<>();
    if (wsrepOn != null && (wsrepOn.equals("1") || wsrepOn.equalsIgnoreCase("ON"))) {
      problems.add(
          "participant '"
              + participant
              + "': this is a Galera cluster node (wsrep_on = ON), and Galera does not support XA"
              + " transactions. Use a server outside the cluster, or a saga or the outbox instead"
              + " of two-phase commit.");
    }
    Matcher m = VERSION.matcher(version == null ? "" : version);
    if (m.find()) {
      int major = Integer.parseInt(m.group(1));
      int minor = Integer.parseInt(m.group(2));
      boolean mariadb = version.toLowerCase(Locale.ROOT).contains("mariadb");
      boolean tooOld = mariadb ? major < 10 || (major == 10 && minor < 5) : major < 8;
      if (tooOld) {
        problems.add(
            "participant '"
                + participant
                + "': "
                + (mariadb ? "MariaDB " : "MySQL ")
                + version
                + " rolls back a prepared XA transaction when its connection closes, so a"
                + " coordinator crash could not be recovered. Use MariaDB 10.5 or later, or MySQL"
                + " 8.0 or later.");
      }
    }
    return problems;
  }

  /** Access denied (1227 specific privilege, 1044/1045/1142 general): MySQL's XA_RECOVER_ADMIN. */
  static boolean isPrivilegeError(SQLException e) {
    int code = e.getErrorCode();
    return code == 1227 || code == 1044 || code == 1045 || code == 1142;
  }

  @Override
  public String decisionForget() {
    return FORGET;
  }
}
