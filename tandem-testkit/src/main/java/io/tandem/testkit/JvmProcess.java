package io.tandem.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Java main class run in a child JVM with this JVM's class path, its output (standard output and
 * error together) in a log file — for tests and drills that kill processes. The child is killed
 * when this JVM exits, so an interrupted run leaves nothing behind.
 *
 * <pre>{@code
 * try (JvmProcess p = JvmProcess.start(dir, "relay-1", List.of("-Dtandem.faults=..."),
 *     "io.tandem.drill.RoleMain", List.of("relay", ...))) {
 *   p.awaitOutput("READY", Duration.ofSeconds(60));
 *   int status = p.awaitExit(Duration.ofSeconds(90));
 * }
 * }</pre>
 */
public final class JvmProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;

  private JvmProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} with {@code args} in a JVM limited to 256 MB of heap (plus {@code
   * jvmOptions}); its output goes to {@code dir/name.log}.
   *
   * @throws IllegalStateException if the process cannot be started
   */
  public static JvmProcess start(
      Path dir, String name, List<String> jvmOptions, String mainClass, List<String> args) {
    List<String> options = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC"));
    options.add("-XX:TieredStopAtLevel=1");
    options.addAll(jvmOptions);
    List<String> command = command(options, mainClass, args);
    Path log = dir.resolve(name + ".log");
    try {
      Files.createDirectories(dir);
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "kill-" + name));
      return new JvmProcess(name, p, log);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the " + name + " process: " + e, e);
    }
  }

  /**
   * The command line that runs {@code mainClass} with {@code args} in a child JVM: this JVM's
   * {@code java} executable and class path, then {@code jvmOptions} (heap, JIT, system properties).
   * For callers that read the child's output themselves instead of through {@link #start}.
   */
  public static List<String> command(List<String> jvmOptions, String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    return command;
  }

  public String name() {
    return name;
  }

  /** The file that receives the process's output. */
  public Path log() {
    return log;
  }

  /** Everything the process printed so far. */
  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Waits until the output holds {@code marker}.
   *
   * @throws IllegalStateException if the process exits first (with the end of its output), or the
   *     marker does not come within {@code timeout}
   */
  public void awaitOutput(String marker, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (output().contains(marker)) {
        return;
      }
      if (!process.isAlive()) {
        String out = output();
        throw new IllegalStateException(
            name
                + " exited (status "
                + process.exitValue()
                + ") before printing "
                + marker
                + "; its log: "
                + log
                + "\n"
                + out.substring(Math.max(0, out.length() - 2000)));
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException(
        name + " did not print " + marker + " within " + timeout + "; its log: " + log);
  }

  /** Waits for the process to end; returns its exit status, or -1 if it still runs. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no orderly close; waits until the process is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM (shutdown hooks run), then SIGKILL after 5 s. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }
}
