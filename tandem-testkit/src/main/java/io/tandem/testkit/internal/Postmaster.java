package io.tandem.testkit.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL server process of one data directory, driven the way {@code pg_ctl} would (which
 * refuses to run as root, while the embedded servers do): read its pid, signal it, start it again
 * from its recorded command line.
 */
public final class Postmaster {

  private static final Pattern OPTS_TOKEN = Pattern.compile("\"([^\"]*)\"|(\\S+)");

  private final Path dataDirectory;

  public Postmaster(Path dataDirectory) {
    this.dataDirectory = dataDirectory;
  }

  public Path dataDirectory() {
    return dataDirectory;
  }

  /**
   * The command line this server was last started with ({@code postmaster.opts}): the {@code
   * postgres} binary first, then its options.
   */
  public List<String> recordedCommand() {
    String opts;
    try {
      opts = Files.readString(dataDirectory.resolve("postmaster.opts"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(
          "Cannot read postmaster.opts in " + dataDirectory + ": " + e.getMessage(), e);
    }
    List<String> command = new ArrayList<>();
    Matcher m = OPTS_TOKEN.matcher(opts.trim());
    while (m.find()) {
      command.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    return command;
  }

  /** The running postmaster's pid, from {@code postmaster.pid}. */
  public long pid() {
    Path pidFile = dataDirectory.resolve("postmaster.pid");
    try {
      return Long.parseLong(Files.readAllLines(pidFile, StandardCharsets.UTF_8).get(0).trim());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("No readable " + pidFile + " (is PostgreSQL running?)", e);
    }
  }

  /**
   * Sends {@code signal} (for example {@code QUIT}: immediate shutdown, {@code INT}: fast shutdown)
   * to the postmaster and waits up to 60 s for it to exit.
   */
  public void signalAndWait(String signal) {
    long pid = pid();
    Signals.send(signal, pid);
    awaitExit(pid);
  }

  /**
   * Kills the postmaster and every process it started with SIGKILL, at once, as when its machine is
   * lost: no shutdown, no goodbye to clients or standbys. Waits for them to be gone.
   */
  public void killAll() {
    long pid = pid();
    ProcessHandle postmaster =
        ProcessHandle.of(pid)
            .orElseThrow(() -> new IllegalStateException("PostgreSQL " + pid + " is not running"));
    List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
    all.add(0, postmaster);
    all.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle p : all) {
      awaitExit(p.pid());
    }
  }

  private static void awaitExit(long pid) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
        && System.nanoTime() < deadline) {
      sleep(50);
    }
    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      throw new IllegalStateException("PostgreSQL process " + pid + " did not stop within 60 s");
    }
  }

  /**
   * Starts {@code command} (a postmaster command line) in the background, output appended to {@code
   * log}; as root, in a user namespace (PostgreSQL refuses to run as root).
   */
  public static void launch(List<String> command, Path log) {
    List<String> full = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      full.addAll(List.of("unshare", "-U"));
    }
    full.addAll(command);
    try {
      new ProcessBuilder(full)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot start PostgreSQL: " + e.getMessage(), e);
    }
  }

  static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
