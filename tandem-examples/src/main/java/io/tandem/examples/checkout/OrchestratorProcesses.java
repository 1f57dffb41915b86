package io.tandem.examples.checkout;

import io.tandem.testkit.JvmProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The orchestrator as its own process ({@link OrchestratorMain}), when the run kills it: one
 * process at a time, each killed with {@code SIGKILL} and followed by the next. Nothing when the
 * run kills none (the orchestrator then runs in this JVM).
 */
final class OrchestratorProcesses implements AutoCloseable {
  private final CheckoutSystem system;
  private Path dir;
  private JvmProcess current;
  private int started;
  private int kills;

  private final CheckoutDemoSettings settings;
  private final DemoProgress progress;

  OrchestratorProcesses(
      CheckoutSystem system, CheckoutDemoSettings settings, DemoProgress progress) {
    this.system = system;
    this.settings = settings;
    this.progress = progress;
  }

  int kills() {
    return kills;
  }

  void startNext() throws IOException, InterruptedException {
    if (settings.orchestratorKills() == 0) {
      return;
    }
    if (dir == null) {
      dir = Files.createTempDirectory("tandem-demo-orchestrator-");
    }
    String name = "orchestrator-" + ++started;
    current =
        OrchestratorMain.startProcess(system, dir, name, CheckoutDemo.STEP_TIMEOUT, List.of());
    current.awaitOutput(OrchestratorMain.READY + " " + name, Duration.ofSeconds(60));
    progress.say("%s runs as its own process (log: %s)", name, current.log());
  }

  void killAndReplace(long inFlight) throws IOException, InterruptedException {
    current.kill();
    kills++;
    progress.endLiveLine();
    progress.say(
        "killed %s with SIGKILL, %d sagas in flight; a new process carries them on",
        current.name(), inFlight);
    startNext();
  }

  /** Stops the running process; its logs are deleted after a run whose invariants held. */
  void finish(boolean ok) throws InterruptedException, IOException {
    close();
    if (dir == null) {
      return;
    }
    if (ok) {
      try (var files = Files.walk(dir)) {
        for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } else {
      progress.say("the orchestrator processes' logs are kept in %s", dir);
    }
    dir = null;
  }

  @Override
  public void close() throws InterruptedException {
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
