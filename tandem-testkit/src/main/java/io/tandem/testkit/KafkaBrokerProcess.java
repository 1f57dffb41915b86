package io.tandem.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An embedded Kafka broker in a child JVM, for measurements and drills that must not share a heap
 * or a process with the broker. The child is started with this JVM's class path, prints its
 * bootstrap address, and stops when {@link #close()} is called or this JVM exits.
 *
 * <pre>{@code
 * try (KafkaBrokerProcess kafka = KafkaBrokerProcess.start()) {
 *   String bootstrap = kafka.bootstrapServers();
 * }
 * }</pre>
 */
public final class KafkaBrokerProcess implements AutoCloseable {
  static final String READY = "TANDEM-KAFKA-BOOTSTRAP ";
  private static final Duration STARTUP = Duration.ofSeconds(90);

  private final Process process;
  private final String bootstrapServers;

  private KafkaBrokerProcess(Process process, String bootstrapServers) {
    this.process = process;
    this.bootstrapServers = bootstrapServers;
  }

  /** Starts the broker process and waits until it serves clients. */
  public static KafkaBrokerProcess start() {
    return start(List.of());
  }

  /**
   * Starts the broker process with extra options for its JVM (after the default {@code -Xmx512m}),
   * for example {@code -XX:TieredStopAtLevel=1}, and waits until it serves clients.
   */
  public static KafkaBrokerProcess start(List<String> jvmOptions) {
    List<String> options = new ArrayList<>(List.of("-Xmx512m"));
    options.addAll(jvmOptions);
    List<String> command = JvmProcess.command(options, KafkaBrokerMain.class.getName(), List.of());
    Process process;
    try {
      process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the Kafka broker process: " + e, e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "tandem-kafka-process-stop"));
    CompletableFuture<String> ready = new CompletableFuture<>();
    Thread drain =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                // Keep reading after the ready line: a full pipe would block the broker.
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                  if (line.startsWith(READY)) {
                    ready.complete(line.substring(READY.length()).trim());
                  }
                }
              } catch (IOException e) {
                // the process ended
              }
              ready.complete(null);
            },
            "tandem-kafka-process-output");
    drain.setDaemon(true);
    drain.start();
    try {
      String bootstrap = ready.get(STARTUP.toSeconds(), TimeUnit.SECONDS);
      if (bootstrap == null) {
        throw new IllegalStateException(
            "the Kafka broker process exited before it was ready (exit "
                + exitValue(process)
                + ")");
      }
      return new KafkaBrokerProcess(process, bootstrap);
    } catch (TimeoutException | ExecutionException e) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "the Kafka broker process did not start within " + STARTUP, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException("interrupted while starting the Kafka broker process", e);
    }
  }

  private static String exitValue(Process p) {
    try {
      return String.valueOf(p.exitValue());
    } catch (IllegalThreadStateException e) {
      return "still running";
    }
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The broker process's id, to read its CPU time. */
  public long pid() {
    return process.pid();
  }

  /** Stops the broker (SIGTERM, then SIGKILL after 20 s); its data folder goes with it. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
