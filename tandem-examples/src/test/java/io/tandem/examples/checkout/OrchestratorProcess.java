package io.tandem.examples.checkout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A checkout orchestrator instance in its own JVM ({@link OrchestratorMain}), for kill tests. */
final class OrchestratorProcess implements AutoCloseable {
  final String instance;
  final Process process;
  final Path log;

  private OrchestratorProcess(String instance, Process process, Path log) {
    this.instance = instance;
    this.process = process;
    this.log = log;
  }

  static OrchestratorProcess start(CheckoutSystem system, String instance, String stepTimeout)
      throws IOException {
    Path log = Files.createTempFile("checkout-orchestrator-" + instance, ".log");
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            OrchestratorMain.class.getName(),
            system.orchestratorJdbcUrl(),
            system.topology().bootstrapServers(),
            system.topology().prefix(),
            instance,
            stepTimeout);
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    return new OrchestratorProcess(instance, p, log);
  }

  boolean ready() {
    return output().contains(OrchestratorMain.READY + " " + instance);
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /** SIGKILL: no shutdown hook, no orderly close; waits until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
