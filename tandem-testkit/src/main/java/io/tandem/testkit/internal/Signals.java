package io.tandem.testkit.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Sends a Unix signal to a process ({@code kill -SIGNAL pid}), for the kit's faults. */
public final class Signals {
  private Signals() {}

  /**
   * Sends {@code signal} (for example {@code STOP}, {@code CONT}, {@code QUIT}) to {@code pid}.
   *
   * @throws IllegalStateException if {@code kill} fails (no such process, not allowed)
   */
  public static void send(String signal, long pid) {
    List<String> command = List.of("kill", "-" + signal, Long.toString(pid));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(
            "Cannot send SIG" + signal + " to process " + pid + ": " + out.trim());
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "Cannot send SIG" + signal + " to process " + pid + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling process " + pid, e);
    }
  }
}
