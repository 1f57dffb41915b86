package io.tandem.core;

import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link FaultInjector} configured by an explicit setting, for failure drills. Off unless the
 * setting is present: {@link #fromSystemProperty()} returns {@link FaultInjector#NONE} when the
 * system property {@value #PROPERTY} is not set, so production processes pay nothing.
 *
 * <p>The setting is a comma-separated list of {@code POINT=ACTION[@N]}:
 *
 * <ul>
 *   <li>{@code POINT} one of {@link #KNOWN_POINTS}, for example {@code relay.after-ack};
 *   <li>{@code ACTION} {@code halt} (the JVM halts at once with exit status {@value #HALT_STATUS},
 *       no shutdown hooks, as if killed), {@code kill} (the thread that reached the point runs
 *       {@code kill -KILL} on its own process and waits there: the kernel ends the process with
 *       {@code SIGKILL}, exit status 137; where there is no {@code kill} command it halts instead),
 *       {@code crash} (throws {@link FaultInjector.SimulatedCrash}: the component dies, the process
 *       lives), {@code stall} (the thread blocks for good) or {@code stall:DURATION} (blocks that
 *       long, ISO-8601 or {@code 500ms}/{@code 5s}/{@code 1m});
 *   <li>{@code @N} fires on the N-th time the point is reached (default 1), counted per point and
 *       per process; a {@code crash} or timed stall fires on every time from the N-th on, a halt,
 *       kill or endless stall ends things the first time anyway.
 * </ul>
 *
 * <p>Example: {@code -Dtandem.faults=relay.after-ack=halt@3} kills the relay process the third time
 * a batch was acknowledged by the broker, before it is marked published. Before it ends the
 * process, a halt or kill writes one line {@code TANDEM-FAULT point action n} to standard error, so
 * that drills can tell the fault fired from a crash for another reason.
 */
public final class ConfiguredFaults implements FaultInjector {
  /** The system property read by {@link #fromSystemProperty()}. */
  public static final String PROPERTY = "tandem.faults";

  /** The exit status of a halted process (the same as a process killed by SIGKILL). */
  public static final int HALT_STATUS = 137;

  /** The line prefix written to standard error when a fault fires. */
  public static final String FIRED = "TANDEM-FAULT";

  /** Written to standard error when a {@code kill} could not kill and the process halts instead. */
  public static final String KILL_FAILED = FIRED + " halting instead";

  /** The fault points this build has. */
  public static final List<String> KNOWN_POINTS =
      List.of(
          SERVICE_AFTER_COMMIT,
          RELAY_AFTER_CLAIM,
          RELAY_AFTER_ACK,
          CONSUMER_AFTER_COMMIT,
          ORCHESTRATOR_AFTER_STEP,
          XA_AFTER_PREPARE,
          XA_AFTER_DECISION,
          XA_MID_PHASE_TWO,
          CDC_BEFORE_OFFSET_FLUSH);

  private final Map<String, Rule> rules;

  private ConfiguredFaults(Map<String, Rule> rules) {
    this.rules = rules;
  }

  /**
   * Returns the injector configured by the system property {@value #PROPERTY}, or {@link
   * FaultInjector#NONE} when it is not set or blank.
   *
   * @throws IllegalArgumentException when the property is set but malformed
   */
  public static FaultInjector fromSystemProperty() {
    String spec = System.getProperty(PROPERTY);
    return spec == null || spec.isBlank() ? NONE : parse(spec);
  }

  /**
   * Parses a setting such as {@code relay.after-ack=halt@3,consumer.after-commit=stall:2s}.
   *
   * @throws IllegalArgumentException naming the part that is wrong and what is expected
   */
  public static ConfiguredFaults parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    Map<String, Rule> rules = new LinkedHashMap<>();
    for (String part : spec.split(",")) {
      String item = part.trim();
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq < 1) {
        throw invalid(item, "expected POINT=ACTION[@N], for example relay.after-ack=halt@3");
      }
      String point = item.substring(0, eq).trim();
      if (!KNOWN_POINTS.contains(point)) {
        throw invalid(item, "unknown fault point '" + point + "'; known points: " + KNOWN_POINTS);
      }
      if (rules.containsKey(point)) {
        throw invalid(item, "fault point '" + point + "' is configured twice");
      }
      String action = item.substring(eq + 1).trim();
      long nth = 1;
      int at = action.lastIndexOf('@');
      if (at >= 0) {
        String n = action.substring(at + 1).trim();
        try {
          nth = Long.parseLong(n);
        } catch (NumberFormatException e) {
          nth = 0;
        }
        if (nth < 1) {
          throw invalid(item, "'@" + n + "' must be a whole number of at least 1");
        }
        action = action.substring(0, at).trim();
      }
      rules.put(point, rule(item, action, nth));
    }
    if (rules.isEmpty()) {
      throw new IllegalArgumentException(
          "Fault setting '" + spec + "' names no fault point; expected POINT=ACTION[@N]");
    }
    return new ConfiguredFaults(rules);
  }

  private static Rule rule(String item, String action, long nth) {
    String lower = action.toLowerCase(Locale.ROOT);
    if (lower.equals("halt")) {
      return new Rule(Kind.HALT, null, nth);
    }
    if (lower.equals("kill")) {
      return new Rule(Kind.KILL, null, nth);
    }
    if (lower.equals("crash")) {
      return new Rule(Kind.CRASH, null, nth);
    }
    if (lower.equals("stall")) {
      return new Rule(Kind.STALL, null, nth);
    }
    if (lower.startsWith("stall:")) {
      return new Rule(Kind.STALL, duration(item, action.substring(6).trim()), nth);
    }
    throw invalid(
        item,
        "unknown action '" + action + "'; expected halt, kill, crash, stall or stall:DURATION");
  }

  private static Duration duration(String item, String text) {
    String t = text.toLowerCase(Locale.ROOT);
    try {
      Duration d;
      if (t.startsWith("p")) {
        d = Duration.parse(text);
      } else if (t.endsWith("ms")) {
        d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      } else if (t.endsWith("s")) {
        d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
      } else if (t.endsWith("m")) {
        d = Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
      } else {
        throw new NumberFormatException(text);
      }
      if (d.isNegative() || d.isZero()) {
        throw new NumberFormatException(text);
      }
      return d;
    } catch (NumberFormatException | DateTimeParseException e) {
      throw invalid(item, "stall duration '" + text + "' must be positive, like 500ms, 5s or PT2S");
    }
  }

  private static IllegalArgumentException invalid(String item, String why) {
    return new IllegalArgumentException(
        "Invalid fault setting '" + item + "' in -D" + PROPERTY + ": " + why);
  }

  /** The configured points, in the order of the setting. */
  public List<String> points() {
    return new ArrayList<>(rules.keySet());
  }

  @Override
  public void reached(String point) {
    Rule rule = rules.get(point);
    if (rule == null) {
      return;
    }
    long n = rule.count.incrementAndGet();
    if (n < rule.nth) {
      return;
    }
    switch (rule.kind) {
      case HALT -> {
        System.err.println(FIRED + " " + point + " halt " + n);
        System.err.flush();
        Runtime.getRuntime().halt(HALT_STATUS);
      }
      case KILL -> {
        if (n > rule.nth) {
          stall(null); // another thread got here while the kill is on its way: it goes no further
        }
        System.err.println(FIRED + " " + point + " kill " + n);
        System.err.flush();
        killThisProcess();
        Runtime.getRuntime().halt(HALT_STATUS); // only when the kill failed: the nearest thing
      }
      case CRASH -> throw new SimulatedCrash(point);
      case STALL -> {
        if (n == rule.nth) {
          System.err.println(FIRED + " " + point + " stall " + n);
          System.err.flush();
        }
        stall(rule.duration);
      }
    }
  }

  /**
   * Has {@code kill -KILL} send this process {@code SIGKILL} and waits for it to land; the calling
   * thread goes no further. Returns only where that fails (no {@code kill} command, as on Windows),
   * having said so on standard error.
   */
  private static void killThisProcess() {
    String pid = Long.toString(ProcessHandle.current().pid());
    try {
      Process kill =
          new ProcessBuilder("kill", "-KILL", pid)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectErrorStream(true)
              .start();
      int status = kill.waitFor();
      stall(Duration.ofSeconds(5)); // the kernel ends this process meanwhile
      System.err.println(FIRED + " kill -KILL " + pid + " (status " + status + ") did not end it");
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println(FIRED + " could not run kill -KILL " + pid + " (" + e + ")");
    }
    System.err.println(KILL_FAILED);
    System.err.flush();
  }

  private static void stall(Duration duration) {
    long end = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
    while (duration == null || System.nanoTime() < end) {
      try {
        Thread.sleep(
            duration == null
                ? 60_000
                : Math.max(1, Math.min(60_000, (end - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        // a stalled thread ignores interruption, like a thread stuck in the kernel would
      }
    }
  }

  @Override
  public String toString() {
    return "ConfiguredFaults" + rules;
  }

  private enum Kind {
    HALT,
    KILL,
    CRASH,
    STALL
  }

  private static final class Rule {
    final Kind kind;
    final Duration duration;
    final long nth;
    final AtomicLong count = new AtomicLong();

    Rule(Kind kind, Duration duration, long nth) {
      this.kind = kind;
      this.duration = duration;
      this.nth = nth;
    }

    @Override
    public String toString() {
      return kind.name().toLowerCase(Locale.ROOT)
          + (duration == null ? "" : ":" + duration)
          + "@"
          + nth;
    }
  }
}
