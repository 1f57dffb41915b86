package io.tandem.testkit;

import io.tandem.core.Redaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Java main class run in a child JVM with this JVM's class path, its output (standard output and
 * error together) in a log file — for tests and drills that kill processes. The child is killed
 * when this JVM exits, so an interrupted run leaves nothing behind.
 *
 * <p>A command line is visible to every user of the machine ({@code ps}), so it never carries a
 * credential: {@link #command} refuses an argument or option that holds one ({@link
 * Redaction#containsSecret}). Secret values — JDBC URLs, broker URIs — travel in the child's
 * environment instead: {@link Arguments#secret} puts the value in the environment and the argument
 * {@code env:NAME} on the command line, and the child reads it back with {@link #argument}.
 *
 * <pre>{@code
 * // parent
 * JvmProcess.Arguments args = JvmProcess.arguments().add("relay")
 *     .add("--jdbc-url").secret("TANDEM_JDBC_URL", jdbcUrl);
 * JvmProcess p = JvmProcess.start(dir, "relay-1", List.of(), RoleMain.class.getName(), args);
 * // child
 * String jdbcUrl = JvmProcess.argument(args[2]);  // the URL, from TANDEM_JDBC_URL
 * }</pre>
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
    return start(dir, name, jvmOptions, mainClass, arguments().add(args));
  }

  /**
   * Starts {@code mainClass} as {@link #start(Path, String, List, String, List)} does, with {@code
   * args}' secret values in its environment.
   *
   * @throws IllegalArgumentException if a plain argument or option holds a credential
   * @throws IllegalStateException if the process cannot be started
   */
  public static JvmProcess start(
      Path dir, String name, List<String> jvmOptions, String mainClass, Arguments args) {
    List<String> options = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC"));
    options.add("-XX:TieredStopAtLevel=1");
    options.addAll(jvmOptions);
    ProcessBuilder builder = processBuilder(options, mainClass, args);
    Path log = dir.resolve(name + ".log");
    try {
      Files.createDirectories(dir);
      Process p =
          builder
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
    refuseSecrets("JVM option", jvmOptions, mainClass);
    refuseSecrets("argument", args, mainClass);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    return command;
  }

  /**
   * A process builder for {@code mainClass} with {@code args}: the command line of {@link #command}
   * (plain arguments and {@code env:NAME} references) and the secret values in its environment.
   */
  public static ProcessBuilder processBuilder(
      List<String> jvmOptions, String mainClass, Arguments args) {
    ProcessBuilder builder = new ProcessBuilder(command(jvmOptions, mainClass, args.commandLine));
    builder.environment().putAll(args.environment);
    return builder;
  }

  /** An empty argument list, to fill with {@link Arguments#add} and {@link Arguments#secret}. */
  public static Arguments arguments() {
    return new Arguments();
  }

  /**
   * In the child: {@code value} itself, or, when it is {@code env:NAME}, the value of the
   * environment variable {@code NAME} that {@link Arguments#secret} set.
   *
   * @throws IllegalStateException if the variable is not set
   */
  public static String argument(String value) {
    if (value == null || !value.startsWith(ENVIRONMENT_REFERENCE)) {
      return value;
    }
    String variable = value.substring(ENVIRONMENT_REFERENCE.length());
    String resolved = System.getenv(variable);
    if (resolved == null) {
      throw new IllegalStateException(
          "argument "
              + value
              + " names the environment variable "
              + variable
              + ", which is not"
              + " set: the parent passes it with JvmProcess.Arguments.secret");
    }
    return resolved;
  }

  private static final String ENVIRONMENT_REFERENCE = "env:";

  private static void refuseSecrets(String what, List<String> values, String mainClass) {
    for (int i = 0; i < values.size(); i++) {
      if (Redaction.containsSecret(values.get(i))) {
        throw new IllegalArgumentException(
            what
                + " "
                + i
                + " of "
                + mainClass
                + " holds a credential ("
                + Redaction.redact(values.get(i))
                + "), which every user of the machine would see in ps: pass it with"
                + " JvmProcess.Arguments.secret, in the child's environment");
      }
    }
  }

  /**
   * The arguments of a child JVM: plain ones on its command line, secret ones in its environment
   * with a reference {@code env:NAME} on the command line. Not thread-safe; build, then start.
   */
  public static final class Arguments {
    private final List<String> commandLine = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();

    private Arguments() {}

    /** Adds plain arguments (no credential: {@link #command} refuses one). */
    public Arguments add(String... values) {
      return add(List.of(values));
    }

    /** Adds plain arguments (no credential: {@link #command} refuses one). */
    public Arguments add(List<String> values) {
      commandLine.addAll(values);
      return this;
    }

    /**
     * Adds {@code value} through the child's environment variable {@code variable}: the command
     * line holds {@code env:variable}, which the child resolves with {@link JvmProcess#argument}.
     */
    public Arguments secret(String variable, String value) {
      if (variable == null || !variable.matches("[A-Z][A-Z0-9_]*")) {
        throw new IllegalArgumentException(
            "variable must be an upper-case environment variable name, was " + variable);
      }
      String previous = environment.putIfAbsent(variable, value);
      if (previous != null && !previous.equals(value)) {
        throw new IllegalArgumentException(variable + " is already given another value");
      }
      commandLine.add(ENVIRONMENT_REFERENCE + variable);
      return this;
    }

    /**
     * Sets the child's environment variable {@code variable} to {@code value} without a reference
     * on the command line, for a child that reads the variable itself ({@code tandem} reads {@code
     * TANDEM_JDBC_URL}, for example).
     */
    public Arguments environment(String variable, String value) {
      if (variable == null || !variable.matches("[A-Z][A-Z0-9_]*")) {
        throw new IllegalArgumentException(
            "variable must be an upper-case environment variable name, was " + variable);
      }
      environment.put(variable, value);
      return this;
    }

    /** The command line's arguments, references included (what {@code ps} shows). */
    public List<String> commandLine() {
      return List.copyOf(commandLine);
    }
  }

  public String name() {
    return name;
  }

  /** The process id of the child. */
  public long pid() {
    return process.pid();
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
