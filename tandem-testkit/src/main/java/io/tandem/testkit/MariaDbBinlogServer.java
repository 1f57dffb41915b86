package io.tandem.testkit;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A MariaDB server of its own with the binary log on ({@code --log-bin --binlog-format=ROW
 * --binlog-row-image=FULL}), for the CDC relay's tests: the machine's MariaDB may run without a
 * binlog. Set up with {@code mariadb-install-db} in a temporary directory, started as {@code
 * mariadbd --no-defaults} on a free port reachable over TCP as root without a password, and stopped
 * (its directory deleted) by {@link #close()}.
 *
 * <pre>{@code
 * try (MariaDbBinlogServer binlog = MariaDbBinlogServer.start()) {
 *   IsolatedDatabase database = binlog.server().createDatabase("cdc_test");
 *   ...
 * }
 * }</pre>
 *
 * <p>{@link #start(String...)} takes extra {@code mariadbd} options (e.g. {@code
 * --binlog-format=STATEMENT}) for tests of a wrong setup. Thread safety: all methods may be called
 * from any thread.
 */
public final class MariaDbBinlogServer implements AutoCloseable {
  /** Where the binaries are looked for besides PATH. */
  private static final List<String> DIRECTORIES =
      List.of("/usr/sbin", "/usr/bin", "/usr/local/bin");

  private static int nextServerId = 1000 + (int) (ProcessHandle.current().pid() % 10000);

  private final Path directory;
  private final int port;
  private final List<String> command;
  private final Path log;
  private Process process;
  private final MariaDbServer server;

  private MariaDbBinlogServer(Path directory, int port, List<String> command) {
    this.directory = directory;
    this.port = port;
    this.command = command;
    this.log = directory.resolve("mariadbd.log");
    launch();
    this.server = MariaDbServer.external(jdbcUrl());
  }

  /**
   * Whether {@code mariadbd} and {@code mariadb-install-db} can be found; if not, the reason (what
   * to install).
   */
  public static Optional<String> unavailableReason() {
    if (binary("mariadbd").isEmpty() || binary("mariadb-install-db").isEmpty()) {
      return Optional.of(
          "mariadbd or mariadb-install-db not found on PATH or in "
              + DIRECTORIES
              + ": install the MariaDB server package (apt-get install mariadb-server)");
    }
    return Optional.empty();
  }

  /**
   * Installs a data directory and starts a server with the binlog on.
   *
   * @param extraOptions more {@code mariadbd} options, after the defaults (so they win)
   * @throws IllegalStateException if the binaries are missing or the server does not start within
   *     60 s (the message carries its log's end)
   */
  public static MariaDbBinlogServer start(String... extraOptions) {
    unavailableReason()
        .ifPresent(
            reason -> {
              throw new IllegalStateException(reason);
            });
    Path directory;
    try {
      directory = Files.createTempDirectory("tandem-mariadb-binlog-");
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a directory for the binlog MariaDB", e);
    }
    Path data = directory.resolve("data");
    run(
        directory,
        List.of(
            binary("mariadb-install-db").orElseThrow().toString(),
            "--no-defaults",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            "--user=" + System.getProperty("user.name"),
            "--datadir=" + data));
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(binary("mariadbd").orElseThrow().toString());
    command.add("--no-defaults");
    command.add("--datadir=" + data);
    // mariadbd refuses to run as root unless told to; as any other user it runs as that user
    command.add("--user=" + System.getProperty("user.name"));
    command.add("--socket=" + directory.resolve("mariadb.sock"));
    command.add("--pid-file=" + directory.resolve("mariadb.pid"));
    command.add("--port=" + port);
    command.add("--bind-address=127.0.0.1");
    command.add("--skip-name-resolve");
    command.add("--log-bin=" + directory.resolve("binlog").resolve("mariadb-bin"));
    command.add("--binlog-format=ROW");
    command.add("--binlog-row-image=FULL");
    command.add("--server-id=" + serverId());
    command.add("--innodb-buffer-pool-size=64M");
    command.add("--innodb-log-file-size=16M");
    command.add("--max-connections=200");
    command.addAll(List.of(extraOptions));
    try {
      Files.createDirectories(directory.resolve("binlog"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new MariaDbBinlogServer(directory, port, command);
  }

  private static synchronized int serverId() {
    return nextServerId++;
  }

  private void launch() {
    try {
      process =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start mariadbd: " + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "mariadbd exited with " + process.exitValue() + " at start: " + logTail());
      }
      try (Connection c = MariaDbServer.dataSourceFor(jdbcUrl()).getConnection();
          Statement s = c.createStatement()) {
        s.execute("SELECT 1");
        return;
      } catch (SQLException e) {
        last = e;
      }
      sleep(200);
    }
    process.destroyForcibly();
    throw new IllegalStateException(
        "mariadbd did not accept connections on port "
            + port
            + " within 60 s ("
            + (last == null ? "" : last.getMessage())
            + "): "
            + logTail());
  }

  /** The URL of its {@code mysql} database, as root over TCP without a password. */
  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/mysql?user=root";
  }

  public int port() {
    return port;
  }

  /** The server, to create isolated databases on. */
  public MariaDbServer server() {
    return server;
  }

  /** Kills the server (SIGKILL) without a clean shutdown: for database-restart tests. */
  public synchronized void kill() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      waitFor(process);
    }
  }

  /** Starts the server again on the same port and data (after {@link #kill()}). */
  public synchronized void restart() {
    kill();
    launch();
  }

  @Override
  public synchronized void close() {
    if (process != null && process.isAlive()) {
      process.destroy(); // SIGTERM: a clean shutdown
      if (!waitFor(process)) {
        process.destroyForcibly();
        waitFor(process);
      }
    }
    delete(directory);
  }

  private static boolean waitFor(Process p) {
    try {
      return p.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static void run(Path directory, List<String> command) {
    try {
      Path out = directory.resolve("install.log");
      Process p =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + " failed: " + Files.readString(out));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Optional<Path> binary(String name) {
    List<String> dirs = new ArrayList<>(DIRECTORIES);
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(0, List.of(path.split(java.io.File.pathSeparator)));
    }
    return dirs.stream()
        .filter(d -> !d.isEmpty())
        .map(d -> Paths.get(d, name))
        .filter(Files::isExecutable)
        .findFirst();
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void delete(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory: left behind at worst
    }
  }

  @Override
  public String toString() {
    return "binlog MariaDB on 127.0.0.1:" + port;
  }
}
