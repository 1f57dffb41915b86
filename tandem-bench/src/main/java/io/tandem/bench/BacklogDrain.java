package io.tandem.bench;

import io.tandem.kafka.KafkaClientProperties;
import io.tandem.testkit.JvmProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** The relay benchmark's heap figure: a relay process ({@link RelayDrainMain}) drains 1M rows. */
final class BacklogDrain {
  private BacklogDrain() {}

  /**
   * Drains {@code db}'s backlog with a relay process limited to -Xmx256m; returns its peak heap in
   * MB. {@code say} gets the progress lines.
   */
  static Double inChildProcess(
      BenchDatabase db,
      String bootstrap,
      String topic,
      Map<String, String> kafkaClient,
      Consumer<String> say)
      throws Exception {
    List<String> options = new ArrayList<>(List.of("-Xmx256m"));
    options.addAll(BenchJvm.jitOptions());
    ProcessBuilder command =
        JvmProcess.processBuilder(
            options,
            RelayDrainMain.class.getName(),
            JvmProcess.arguments()
                .secret("TANDEM_BENCH_JDBC_URL", db.database.jdbcUrl())
                .environment(
                    KafkaClientProperties.ENVIRONMENT_VARIABLE,
                    KafkaClientProperties.encode(kafkaClient)) // never on the command line
                .add(bootstrap, topic));
    say.accept("draining the backlog with a relay process limited to -Xmx256m");
    Process p = command.redirectError(ProcessBuilder.Redirect.DISCARD).start();
    Double heap = null;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(RelayDrainMain.RESULT)) {
          String[] parts = line.substring(RelayDrainMain.RESULT.length()).trim().split(" ");
          heap = Double.parseDouble(parts[0]);
          say.accept(
              "relay process drained 1M rows in "
                  + parts[1]
                  + " ms, peak heap "
                  + parts[0]
                  + " MB");
        }
      }
    }
    if (!p.waitFor(20, TimeUnit.MINUTES) || p.exitValue() != 0 || heap == null) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "the relay process did not drain the 1M-row backlog within -Xmx256m (exit "
              + (p.isAlive() ? "none" : p.exitValue())
              + ")");
    }
    if (db.pending() != 0) {
      throw new IllegalStateException("the relay process left rows unpublished");
    }
    return heap;
  }
}
