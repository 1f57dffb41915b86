package io.tandem.drill;

import io.tandem.core.ConfiguredFaults;
import io.tandem.testkit.JvmProcess;
import java.time.Duration;
import java.util.List;

/** Whether a drill's process died where the drill told it to, and not for another reason. */
final class Faults {
  static final Duration EXIT = Duration.ofSeconds(90);

  private Faults() {}

  /**
   * Waits for {@code process} to end and records in {@code detail} whether it halted at its
   * configured fault point (exit status 137 — a halt or a SIGKILL — after a {@code TANDEM-FAULT}
   * line, and no line saying that the kill failed).
   */
  static boolean diedAtItsFault(JvmProcess process, String what, List<String> detail)
      throws InterruptedException {
    return diedAtItsFault(process, what, detail, EXIT);
  }

  /**
   * As {@link #diedAtItsFault(JvmProcess, String, List)}, waiting up to {@code wait}: a long run
   * reaches a fault a third of the way through only after minutes.
   */
  static boolean diedAtItsFault(JvmProcess process, String what, List<String> detail, Duration wait)
      throws InterruptedException {
    int status = process.awaitExit(wait);
    boolean fired =
        status == ConfiguredFaults.HALT_STATUS
            && process.output().contains(ConfiguredFaults.FIRED)
            && !process.output().contains(ConfiguredFaults.KILL_FAILED);
    detail.add(what + ": " + (fired ? "yes" : "NO, exit status " + status));
    return fired;
  }

  /** The JVM option that switches {@code faults} on in a child process; none for null. */
  static List<String> jvmOptions(String faults) {
    return faults == null ? List.of() : List.of("-D" + ConfiguredFaults.PROPERTY + "=" + faults);
  }

  /**
   * How long a drill waits for a process to end: {@link #EXIT}, or the drill's timeout when longer
   * (a 100,000-event service writes for many minutes).
   */
  static Duration exitWait(DrillSettings settings) {
    return EXIT.compareTo(settings.timeout()) > 0 ? EXIT : settings.timeout();
  }

  static String point(String point, String action, int nth) {
    return point + "=" + action + "@" + nth;
  }
}
