package io.tandem.drill;

import io.tandem.core.ConfiguredFaults;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One process of a drill: a JVM started with this JVM's class path, its output in a log file. It
 * dies with this JVM (a shutdown hook kills it) so an interrupted drill leaves nothing running.
 */
final class RoleProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;

  private RoleProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} with {@code args}; {@code faults}, when not null, becomes {@code
   * -Dtandem.faults}.
   */
  static RoleProcess start(
      Path dir, String name, String faults, String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    if (faults != null) {
      command.add("-D" + ConfiguredFaults.PROPERTY + "=" + faults);
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    Path log = dir.resolve(name + ".log");
    try {
      Files.createDirectories(dir);
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "drill-kill-" + name));
      return new RoleProcess(name, p, log);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the " + name + " process: " + e, e);
    }
  }

  static RoleProcess role(Path dir, String name, String faults, String role, List<String> args) {
    List<String> all = new ArrayList<>();
    all.add(role);
    all.addAll(args);
    return start(dir, name, faults, RoleMain.class.getName(), all);
  }

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** Waits until the output holds {@code marker}; fails if the process exits first. */
  void awaitOutput(String marker, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (output().contains(marker)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            name
                + " exited (status "
                + process.exitValue()
                + ") before printing "
                + marker
                + "; its log: "
                + log
                + "\n"
                + tail());
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException(
        name + " did not print " + marker + " within " + timeout + "; its log: " + log);
  }

  void awaitReady(Duration timeout) throws InterruptedException {
    awaitOutput(RoleMain.READY, timeout);
  }

  /** Waits for the process to end; returns its exit status, or -1 if it still runs. */
  int awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Whether it died at a configured fault point (rather than for another reason). */
  boolean faultFired() {
    return output().contains(ConfiguredFaults.FIRED);
  }

  /** SIGKILL, then waits until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  String tail() {
    String out = output();
    return out.length() <= 2000 ? out : out.substring(out.length() - 2000);
  }

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
