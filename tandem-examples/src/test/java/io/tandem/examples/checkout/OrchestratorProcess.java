package io.tandem.examples.checkout;

import io.tandem.testkit.JvmProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

/** A checkout orchestrator instance in its own JVM ({@link OrchestratorMain}), for kill tests. */
final class OrchestratorProcess {
  private OrchestratorProcess() {}

  /** Starts an instance and waits until it runs. */
  static JvmProcess start(CheckoutSystem system, String instance, String stepTimeout)
      throws IOException, InterruptedException {
    return start(system, instance, stepTimeout, List.of());
  }

  /** Starts an instance with these JVM options (a fault setting) and waits until it runs. */
  static JvmProcess start(
      CheckoutSystem system, String instance, String stepTimeout, List<String> jvmOptions)
      throws IOException, InterruptedException {
    JvmProcess p =
        OrchestratorMain.startProcess(
            system,
            Files.createTempDirectory("checkout-orchestrator-"),
            instance,
            Duration.parse(stepTimeout),
            jvmOptions);
    p.awaitOutput(OrchestratorMain.READY + " " + instance, Duration.ofSeconds(60));
    return p;
  }
}
