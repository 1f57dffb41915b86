package io.tandem.testkit;

import io.tandem.testkit.internal.ExitCleanup;
import io.tandem.testkit.internal.FreePorts;
import io.tandem.testkit.internal.Postmaster;
import io.tandem.testkit.internal.Signals;
import io.tandem.testkit.internal.TemporaryDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * A PostgreSQL primary with one streaming standby, both embedded servers on this machine, for
 * failover tests and drills. Clients use {@link #jdbcUrl()}, a multi-host URL with {@code
 * targetServerType=primary}: the driver connects to whichever of the two is the primary, so after
 * {@link #failOver()} they find the promoted standby by themselves.
 *
 * <pre>{@code
 * try (ReplicatedPostgres pair = ReplicatedPostgres.start(ReplicatedPostgres.Replication.SYNCHRONOUS);
 *     IsolatedDatabase db = pair.server().createDatabase("failover_test")) {
 *   ... write through db.dataSource() ...
 *   pair.failOver(); // SIGKILL of the primary's processes, then the standby is promoted
 *   ... every acknowledged commit is on the new primary ...
 * }
 * }</pre>
 *
 * <p>With {@link Replication#SYNCHRONOUS} a commit is acknowledged only when the standby has
 * flushed it ({@code synchronous_standby_names} names the standby, {@code synchronous_commit=on}):
 * what a client was told is committed survives the primary's loss. With {@link
 * Replication#ASYNCHRONOUS} it is acknowledged on the primary's flush alone, and a standby that is
 * behind when the primary dies loses those commits; drills use it as the unprotected variant.
 *
 * <p>The standby is made from a copy of the primary's data directory taken while the primary is
 * shut down cleanly (a cold base backup: the embedded binaries carry no {@code pg_basebackup}).
 * Both run with {@code fsync} on. {@link #close()} stops both and deletes their data.
 */
public final class ReplicatedPostgres implements AutoCloseable {

  /** When the primary acknowledges a commit. */
  public enum Replication {
    /** Once the standby has flushed it too. */
    SYNCHRONOUS,
    /** Once the primary has flushed it; the standby follows a little later. */
    ASYNCHRONOUS
  }

  /** The standby's {@code application_name}, as {@code synchronous_standby_names} lists it. */
  public static final String STANDBY_NAME = "tandem_standby";

  private static final Duration STARTUP = Duration.ofSeconds(60);

  private final PostgresServer primary;
  private final int primaryPort;
  private final Postmaster standby;
  private final int standbyPort;
  private final PostgresServer view;
  private final Replication replication;
  private final ExitCleanup.Registration exitCleanup;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean failedOver;

  private ReplicatedPostgres(
      PostgresServer primary,
      int primaryPort,
      Postmaster standby,
      int standbyPort,
      Replication replication) {
    this.primary = primary;
    this.primaryPort = primaryPort;
    this.standby = standby;
    this.standbyPort = standbyPort;
    this.replication = replication;
    this.exitCleanup =
        ExitCleanup.register("stop the PostgreSQL standby on port " + standbyPort, this::stop);
    this.view = PostgresServer.external(multiHostUrl(primaryPort, standbyPort));
  }

  /**
   * Starts a primary and a standby streaming from it, and waits until the standby is attached (and,
   * for {@link Replication#SYNCHRONOUS}, until the primary lists it as synchronous). Takes some
   * seconds.
   *
   * @throws IllegalStateException if either server does not start or the standby does not attach
   */
  public static ReplicatedPostgres start(Replication replication) {
    PostgresServer primary =
        PostgresServer.embedded()
            .durable(true)
            .serverConfig("wal_keep_size", "512MB")
            .serverConfig("max_wal_senders", "10")
            .startupTimeout(STARTUP)
            .start();
    Path standbyDirectory = null;
    try {
      int primaryPort = portOf(primary.jdbcUrl());
      Postmaster primaryProcess = primary.postmaster();
      List<String> primaryCommand = primaryProcess.recordedCommand();
      primary.stopFast();
      standbyDirectory = TemporaryDirectory.create("tandem-postgres-standby-");
      copyDataDirectory(primaryProcess.dataDirectory(), standbyDirectory);
      Files.createFile(standbyDirectory.resolve("standby.signal"));
      primary.startAgain();

      int standbyPort = FreePorts.allocate(1)[0];
      Postmaster.launch(
          standbyCommand(primaryCommand, standbyDirectory, standbyPort, primaryPort),
          standbyDirectory.resolve("tandem-standby.log"));
      ReplicatedPostgres pair =
          new ReplicatedPostgres(
              primary, primaryPort, new Postmaster(standbyDirectory), standbyPort, replication);
      pair.awaitAttached();
      return pair;
    } catch (IOException | RuntimeException e) {
      primary.close();
      if (standbyDirectory != null) {
        Path log = standbyDirectory.resolve("tandem-standby.log");
        String tail = tail(log);
        stopQuietly(new Postmaster(standbyDirectory));
        TemporaryDirectory.delete(standbyDirectory);
        throw new IllegalStateException(
            "The PostgreSQL standby did not start: " + e.getMessage() + tail, e);
      }
      throw new IllegalStateException("The PostgreSQL primary did not start: " + e.getMessage(), e);
    }
  }

  /** The multi-host URL clients use (user {@code postgres}, main database), primary first. */
  public String jdbcUrl() {
    return view.jdbcUrl();
  }

  /** The pair as one server, through {@link #jdbcUrl()}: create test databases on it. */
  public PostgresServer server() {
    return view;
  }

  /** How commits are acknowledged. */
  public Replication replication() {
    return replication;
  }

  /** The URL of the original primary alone. */
  public String primaryJdbcUrl() {
    return singleHostUrl(primaryPort);
  }

  /** The URL of the standby alone (read-only until promoted). */
  public String standbyJdbcUrl() {
    return singleHostUrl(standbyPort);
  }

  /**
   * Stops streaming to the standby: the primary's WAL sender is paused (SIGSTOP), as if the network
   * to the standby stalled. A synchronous primary then holds its commits unacknowledged; an
   * asynchronous one goes on acknowledging them while the standby falls behind (what it has not
   * sent is lost with the primary). {@link #resumeStandby()} lets it go on.
   */
  public synchronized void pauseStandby() {
    walSenderPid =
        queryLong(
            primaryJdbcUrl(),
            "SELECT pid FROM pg_stat_replication WHERE application_name = '" + STANDBY_NAME + "'");
    Signals.send("STOP", walSenderPid);
  }

  /** Lets a {@link #pauseStandby() paused} WAL sender go on (SIGCONT). */
  public synchronized void resumeStandby() {
    if (walSenderPid >= 0) {
      Signals.send("CONT", walSenderPid);
      walSenderPid = -1;
    }
  }

  private long walSenderPid = -1;

  /**
   * Loses the primary and promotes the standby: every process of the primary is killed with SIGKILL
   * (no shutdown, clients cut; what it had not sent to the standby is lost), then {@code
   * pg_promote()} runs on the standby. Returns when the new primary accepts writes, with the
   * milliseconds that took from the kill.
   *
   * @throws IllegalStateException if already failed over, or the promotion does not complete
   */
  public synchronized long failOver() {
    if (failedOver) {
      throw new IllegalStateException("already failed over: there is no standby left to promote");
    }
    long killedAt = System.nanoTime();
    primary.postmaster().killAll();
    failedOver = true;
    walSenderPid = -1; // killed with the primary
    promoteStandby();
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
  }

  private void promoteStandby() {
    DataSource standbyDs = PostgresServer.dataSourceFor(standbyJdbcUrl());
    try (Connection c = standbyDs.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_promote(true, 60)")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        throw new IllegalStateException("pg_promote() did not complete within 60 s");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot promote the standby: " + e.getMessage(), e);
    }
  }

  private void awaitAttached() {
    PostgresServer.awaitConnections(
        PostgresServer.dataSourceFor(standbyJdbcUrl()),
        STARTUP,
        "(the standby); see " + standby.dataDirectory().resolve("tandem-standby.log"));
    awaitPrimary(
        "SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
            + STANDBY_NAME
            + "' AND state = 'streaming'",
        "the standby to stream from the primary");
    if (replication == Replication.SYNCHRONOUS) {
      try (Connection c = PostgresServer.dataSourceFor(primaryJdbcUrl()).getConnection();
          Statement s = c.createStatement()) {
        // In the primary's own configuration only: the promoted standby must not wait for a
        // standby of its own.
        s.execute("ALTER SYSTEM SET synchronous_standby_names = '" + STANDBY_NAME + "'");
        s.execute("SELECT pg_reload_conf()");
      } catch (SQLException e) {
        throw new IllegalStateException(
            "Cannot make the standby synchronous: " + e.getMessage(), e);
      }
      awaitPrimary(
          "SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
              + STANDBY_NAME
              + "' AND sync_state = 'sync'",
          "the primary to list the standby as synchronous");
    }
  }

  private void awaitPrimary(String countQuery, String what) {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (System.nanoTime() < deadline) {
      if (queryLong(primaryJdbcUrl(), countQuery) > 0) {
        return;
      }
      sleep(100);
    }
    throw new IllegalStateException(
        "Timed out after " + STARTUP + " waiting for " + what + tail(standbyLog()));
  }

  private Path standbyLog() {
    return standby.dataDirectory().resolve("tandem-standby.log");
  }

  private static long queryLong(String url, String sql) {
    try (Connection c = PostgresServer.dataSourceFor(url).getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        throw new IllegalStateException("no row from: " + sql);
      }
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + " failed: " + e.getMessage(), e);
    }
  }

  /** The primary's command line with the standby's directory and port, and where to stream from. */
  static List<String> standbyCommand(
      List<String> primaryCommand, Path standbyDirectory, int standbyPort, int primaryPort) {
    List<String> command = new ArrayList<>();
    for (int i = 0; i < primaryCommand.size(); i++) {
      String token = primaryCommand.get(i);
      if ((token.equals("-D") || token.equals("-p")) && i + 1 < primaryCommand.size()) {
        i++; // replaced below
      } else {
        command.add(token);
      }
    }
    command.addAll(
        List.of(
            "-D",
            standbyDirectory.toString(),
            "-p",
            Integer.toString(standbyPort),
            "-c",
            "hot_standby=on",
            "-c",
            "primary_conninfo=host=127.0.0.1 port="
                + primaryPort
                + " user=postgres application_name="
                + STANDBY_NAME));
    return command;
  }

  private static void copyDataDirectory(Path from, Path to) throws IOException {
    Set<String> skip = Set.of("postmaster.pid", "postmaster.opts", "tandem-restart.log");
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path source : (Iterable<Path>) paths::iterator) {
        Path relative = from.relativize(source);
        if (relative.getNameCount() == 1 && skip.contains(relative.toString())) {
          continue;
        }
        Path target = to.resolve(relative.toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target);
        }
      }
    }
    Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
  }

  private static int portOf(String jdbcUrl) {
    String hostPort = jdbcUrl.substring("jdbc:postgresql://".length(), jdbcUrl.indexOf('/', 18));
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }

  private static String singleHostUrl(int port) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  private static String multiHostUrl(int primaryPort, int standbyPort) {
    return "jdbc:postgresql://127.0.0.1:"
        + primaryPort
        + ",127.0.0.1:"
        + standbyPort
        + "/postgres?user=postgres&targetServerType=primary&hostRecheckSeconds=1&connectTimeout=5";
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return "; the standby's log ends with: "
          + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }

  private static void stopQuietly(Postmaster postmaster) {
    try {
      postmaster.signalAndWait("INT");
    } catch (RuntimeException e) {
      // not running
    }
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void stop() {
    try {
      resumeStandby();
    } catch (RuntimeException e) {
      // gone already
    }
    stopQuietly(standby);
    TemporaryDirectory.delete(standby.dataDirectory());
    if (failedOver) {
      primary.closeKilled();
    } else {
      primary.close();
    }
  }

  /** Stops both servers and deletes their data. Safe to call more than once. */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    stop();
    exitCleanup.cancel();
  }

  @Override
  public String toString() {
    return "PostgreSQL primary on port "
        + primaryPort
        + " with a "
        + replication.name().toLowerCase(java.util.Locale.ROOT)
        + " standby on port "
        + standbyPort
        + (failedOver ? " (failed over: the standby is the primary)" : "");
  }
}
