package io.tandem.nats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * A nats-server process of the test's own, for what the shared server cannot show: a server that
 * goes away and comes back, and one that checks credentials and permissions. Needs the {@code
 * nats-server} binary on the PATH (see {@link #available()}).
 */
final class PrivateNatsServer implements AutoCloseable {
  static final String USER = "tandem";
  static final String PASSWORD = "s3cret";

  private final int port;
  private final Path directory;
  private final Path config;
  private Process process;

  private PrivateNatsServer(String authorization) throws IOException {
    this.port = NatsTestSupport.closedPort();
    this.directory = Files.createTempDirectory("tandem-nats-");
    this.config = directory.resolve("server.conf");
    Files.writeString(
        config,
        "listen: 127.0.0.1:"
            + port
            + "\njetstream { store_dir: \""
            + directory.resolve("store")
            + "\" }\n"
            + authorization);
  }

  /** Whether a nats-server binary can be run here. */
  static boolean available() {
    try {
      Process p = new ProcessBuilder("nats-server", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** A server with JetStream and no authorization, started. */
  static PrivateNatsServer open() throws IOException {
    return new PrivateNatsServer("").start();
  }

  /**
   * A server with JetStream whose one user ({@link #USER}/{@link #PASSWORD}) may publish only to
   * {@code allowed.>}, the JetStream API and inboxes; started.
   */
  static PrivateNatsServer withPermissions() throws IOException {
    String authorization =
        "authorization { users = [ { user: \""
            + USER
            + "\", password: \""
            + PASSWORD
            + "\", permissions: { publish: [\"allowed.>\", \"$JS.API.>\", \"_INBOX.>\"],"
            + " subscribe: \">\" } } ] }\n";
    return new PrivateNatsServer(authorization).start();
  }

  String url() {
    return "nats://127.0.0.1:" + port;
  }

  String url(String user, String password) {
    return "nats://" + user + ":" + password + "@127.0.0.1:" + port;
  }

  /** Starts the process and waits until it accepts connections. */
  PrivateNatsServer start() throws IOException {
    process =
        new ProcessBuilder("nats-server", "-c", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(directory.resolve("server.log").toFile())
            .start();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(this::accepting);
    return this;
  }

  /** Kills the process (SIGKILL) and waits for it to exit. */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    kill();
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private boolean accepting() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
