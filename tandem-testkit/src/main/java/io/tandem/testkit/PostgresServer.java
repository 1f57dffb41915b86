package io.tandem.testkit;

import io.tandem.testkit.internal.ExitCleanup;
import io.tandem.testkit.internal.FreePorts;
import io.tandem.testkit.internal.JdbcUrls;
import io.tandem.testkit.internal.Postmaster;
import io.tandem.testkit.internal.TemporaryDirectory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A running PostgreSQL server: either embedded (started by this class from binaries shipped as
 * Maven artifacts, no installation or Docker needed) or external (already running, only connected
 * to).
 *
 * <p>Tests should not use the main database directly but take one {@link IsolatedDatabase} per test
 * class, which works the same on both kinds:
 *
 * <pre>{@code
 * try (PostgresServer server = PostgresServer.embedded().durable(true).start();
 *     IsolatedDatabase database = server.createDatabase("relay_test")) {
 *   DataSource dataSource = database.dataSource();
 *   ...
 * }
 * }</pre>
 *
 * <p>An embedded server listens on a free loopback port, runs as superuser {@code postgres} without
 * password, keeps its data in a temporary directory and is stopped, and the directory deleted, by
 * {@link #close()} or at JVM exit, whichever comes first. Usually a test takes the shared server of
 * {@link TestInfrastructure#postgres()} rather than starting its own.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class PostgresServer extends DatabaseServer implements AutoCloseable {

  /** How long {@link Builder#start()} waits for the embedded server by default. */
  public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private static final String MAIN_DATABASE = "postgres";
  private static final String SUPERUSER = "postgres";
  private static final Pattern SETTING_NAME = Pattern.compile("[a-z][a-z0-9_.]*");
  private static final Pattern SETTING_VALUE = Pattern.compile("[^\\s'\"\\\\]+");

  private final String jdbcUrl;
  private final Path dataDirectory;
  private final EmbeddedPostgres embeddedServer;
  private final ExitCleanup.Registration exitCleanup;
  private final Runnable shutdown;
  private final AtomicBoolean closed = new AtomicBoolean();

  private PostgresServer(
      String jdbcUrl,
      Path dataDirectory,
      EmbeddedPostgres embeddedServer,
      ExitCleanup.Registration exitCleanup,
      Runnable shutdown) {
    this.jdbcUrl = jdbcUrl;
    this.dataDirectory = dataDirectory;
    this.embeddedServer = embeddedServer;
    this.exitCleanup = exitCleanup;
    this.shutdown = shutdown;
  }

  /** Returns a builder for an embedded server; nothing starts until {@link Builder#start()}. */
  public static Builder embedded() {
    return new Builder();
  }

  /**
   * Returns a handle on an already running server. It checks that {@code jdbcUrl} connects, but
   * starts and stops nothing: {@link #close()} leaves the server running. The user in the URL needs
   * the {@code CREATEDB} privilege for {@link #createDatabase(String)}.
   *
   * @param jdbcUrl for example {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}
   * @throws IllegalArgumentException if the URL is not a {@code jdbc:postgresql://} URL
   * @throws IllegalStateException if no connection can be opened with it
   */
  public static PostgresServer external(String jdbcUrl) {
    return answering(new PostgresServer(JdbcUrls.requirePostgres(jdbcUrl), null, null, null, null));
  }

  /** Returns the JDBC URL of the main database, user (and password, if any) included. */
  @Override
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /**
   * Returns whether this server was started by this class (and is stopped by it). Named {@code
   * isEmbedded} because Java does not allow it beside the static {@link #embedded()}.
   */
  @Override
  public boolean isEmbedded() {
    return embeddedServer != null;
  }

  /**
   * Crashes an embedded server: an immediate shutdown (SIGQUIT to the postmaster), in which every
   * backend quits at once without a checkpoint, as in a power cut of the database process. Sessions
   * are cut; commits acknowledged with {@code synchronous_commit} on survive (they are in the
   * flushed WAL), later ones may not. {@link #startAgain()} brings it back with crash recovery.
   *
   * @throws UnsupportedOperationException for an external server (Tandem does not stop servers it
   *     did not start)
   * @throws IllegalStateException if {@code pg_ctl} fails
   */
  public synchronized void crash() {
    postmaster().signalAndWait("QUIT"); // immediate shutdown, what pg_ctl -m immediate sends
  }

  /**
   * Stops an embedded server cleanly and at once (a fast shutdown: sessions are cut, a checkpoint
   * is written). {@link #startAgain()} brings it back.
   *
   * @throws UnsupportedOperationException for an external server
   */
  public synchronized void stopFast() {
    postmaster().signalAndWait("INT");
  }

  /**
   * Starts a {@link #crash() crashed} or {@link #stopFast() stopped} embedded server again, on the
   * same port with the same data and settings, and waits until it accepts connections (after crash
   * recovery).
   *
   * @throws UnsupportedOperationException for an external server
   * @throws IllegalStateException if it does not accept connections within the startup timeout
   */
  public synchronized void startAgain() {
    Postmaster postmaster = postmaster();
    Path log = dataDirectory.resolve("tandem-restart.log");
    Postmaster.launch(postmaster.recordedCommand(), log);
    awaitConnections(dataSource(), DEFAULT_STARTUP_TIMEOUT, "after a restart; see " + log);
  }

  /**
   * Waits until {@code dataSource} runs {@code SELECT 1}.
   *
   * @throws IllegalStateException naming {@code what} if it does not within {@code timeout}
   */
  static void awaitConnections(DataSource dataSource, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      try (Connection c = dataSource.getConnection();
          Statement s = c.createStatement()) {
        s.execute("SELECT 1");
        return;
      } catch (SQLException e) {
        last = e;
      }
      sleep(100);
    }
    throw new IllegalStateException(
        "PostgreSQL did not accept connections within "
            + timeout
            + " "
            + what
            + (last == null ? "" : " (" + last.getMessage() + ")"));
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The server process of an embedded server. */
  Postmaster postmaster() {
    if (dataDirectory == null) {
      throw new UnsupportedOperationException(
          "Cannot crash, stop or restart the external PostgreSQL at "
              + JdbcUrls.redact(jdbcUrl)
              + ": Tandem only stops servers it started. Use an embedded server for this.");
    }
    return new Postmaster(dataDirectory);
  }

  /**
   * Stops an embedded server and deletes its data directory; does nothing to an external server.
   * Safe to call more than once.
   */
  @Override
  public void close() {
    if (shutdown == null || closed.getAndSet(true)) {
      return;
    }
    shutdown.run();
    exitCleanup.cancel();
  }

  /**
   * Closes an embedded server whose processes were all killed: deletes its data directory without
   * asking the (gone) server to stop.
   */
  void closeKilled() {
    if (dataDirectory == null || closed.getAndSet(true)) {
      return;
    }
    TemporaryDirectory.delete(dataDirectory);
    exitCleanup.cancel();
  }

  @Override
  boolean closed() {
    return closed.get();
  }

  @Override
  String product() {
    return "PostgreSQL";
  }

  @Override
  String jdbcUrlOf(String name) {
    return JdbcUrls.withDatabase(jdbcUrl, name);
  }

  @Override
  DataSource dataSourceOf(String jdbcUrl) {
    return dataSourceFor(jdbcUrl);
  }

  static DataSource dataSourceFor(String jdbcUrl) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl);
    return dataSource;
  }

  @Override
  public String toString() {
    return (isEmbedded() ? "embedded " : "external ") + JdbcUrls.redact(jdbcUrl);
  }

  /**
   * Configures an embedded server. Defaults favour speed: {@code fsync} and {@code
   * synchronous_commit} are off, so a crash of the machine may lose commits (a crash of the JVM
   * does not). Use {@link #durable(boolean) durable(true)} for tests that measure durability or
   * commit latency.
   *
   * <p>Not thread-safe; build in one thread.
   */
  public static final class Builder {
    private boolean durable;
    private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
    private final Map<String, String> serverConfig = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Whether commits reach the disk before they are acknowledged: {@code true} sets {@code fsync},
     * {@code synchronous_commit} and {@code full_page_writes} on. Default {@code false}.
     */
    public Builder durable(boolean durable) {
      this.durable = durable;
      return this;
    }

    /**
     * Sets a server setting, for example {@code serverConfig("max_prepared_transactions", "20")} or
     * {@code serverConfig("wal_level", "logical")}. It overrides what {@link #durable(boolean)}
     * sets.
     *
     * @throws IllegalArgumentException if the name is not a PostgreSQL setting name or the value is
     *     empty or contains whitespace, quotes or backslashes
     */
    public Builder serverConfig(String name, String value) {
      if (name == null || !SETTING_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "Invalid PostgreSQL setting name '" + name + "': expected for example 'wal_level'");
      }
      if (value == null || !SETTING_VALUE.matcher(value).matches()) {
        throw new IllegalArgumentException(
            "Invalid value '"
                + value
                + "' for PostgreSQL setting "
                + name
                + ": it must be non-empty, without whitespace, quotes or backslashes");
      }
      serverConfig.put(name, value);
      return this;
    }

    /** How long to wait for the server to accept connections; default 30 seconds. */
    public Builder startupTimeout(Duration startupTimeout) {
      Objects.requireNonNull(startupTimeout, "startupTimeout");
      if (startupTimeout.isNegative() || startupTimeout.isZero()) {
        throw new IllegalArgumentException(
            "startupTimeout must be positive, was " + startupTimeout);
      }
      this.startupTimeout = startupTimeout;
      return this;
    }

    /**
     * Starts the server: unpacks the binaries (once per machine, into {@code
     * java.io.tmpdir/embedded-pg}), runs {@code initdb} in a new temporary directory and starts
     * PostgreSQL on a free loopback port. Takes a few seconds.
     *
     * @throws IllegalStateException if the server does not start
     */
    public PostgresServer start() {
      Path dataDirectory = TemporaryDirectory.create("tandem-postgres-");
      int port = FreePorts.allocate(1)[0];
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDirectory)
              .setCleanDataDirectory(true)
              .setRegisterShutdownHook(false)
              .setPort(port)
              .setPGStartupWait(startupTimeout);
      if (durable) {
        builder.setServerConfig("fsync", "on");
        builder.setServerConfig("synchronous_commit", "on");
        builder.setServerConfig("full_page_writes", "on");
      }
      serverConfig.forEach(builder::setServerConfig);
      EmbeddedPostgres server;
      try {
        server = builder.start();
      } catch (IOException | RuntimeException e) {
        TemporaryDirectory.delete(dataDirectory);
        throw new IllegalStateException(
            "Embedded PostgreSQL did not start on port "
                + port
                + " within "
                + startupTimeout
                + ": "
                + e.getMessage()
                + ". Its output is logged by io.zonky.test.db.postgres.embedded.EmbeddedPostgres.",
            e);
      }
      Runnable shutdown =
          () -> {
            try {
              server.close();
            } catch (IOException e) {
              throw new IllegalStateException("Cannot stop embedded PostgreSQL on port " + port, e);
            } finally {
              TemporaryDirectory.delete(dataDirectory);
            }
          };
      String jdbcUrl =
          "jdbc:postgresql://127.0.0.1:" + port + "/" + MAIN_DATABASE + "?user=" + SUPERUSER;
      ExitCleanup.Registration exitCleanup =
          ExitCleanup.register("stop embedded PostgreSQL on port " + port, shutdown);
      return new PostgresServer(jdbcUrl, dataDirectory, server, exitCleanup, shutdown);
    }
  }
}
