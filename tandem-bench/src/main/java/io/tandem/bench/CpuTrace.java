package io.tandem.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Diagnostic for {@code TANDEM_BENCH_TRACE}: CPU time per thread group of this JVM and per process
 * name on this machine between two moments, from {@code /proc} (Linux only; empty elsewhere). A
 * thread or process that ends between the two samples takes its time with it.
 */
final class CpuTrace {
  private static final long TICK_NANOS = 10_000_000L; // USER_HZ 100

  private final Map<String, Long> threads;
  private final Map<String, Long> processes;

  private CpuTrace(Map<String, Long> threads, Map<String, Long> processes) {
    this.threads = threads;
    this.processes = processes;
  }

  static CpuTrace sample() {
    String self = Long.toString(ProcessHandle.current().pid());
    Map<String, Long> threads = ticks(Path.of("/proc", self, "task"), true);
    ProcessHandle.current()
        .children()
        .forEach(
            child ->
                ticks(Path.of("/proc", Long.toString(child.pid()), "task"), true)
                    .forEach(
                        (name, t) ->
                            threads.merge("child " + child.pid() + ": " + name, t, Long::sum)));
    return new CpuTrace(threads, ticks(Path.of("/proc"), false));
  }

  /** Prints the CPU milliseconds per thread group and per process used since {@code earlier}. */
  void printSince(CpuTrace earlier, long events) {
    print("threads of this JVM", threads, earlier.threads, events);
    print("processes", processes, earlier.processes, events);
  }

  private static void print(
      String title, Map<String, Long> now, Map<String, Long> before, long events) {
    System.err.printf("TRACE CPU, %s (ms; us per event over %d events):%n", title, events);
    now.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
        .filter(e -> e.getValue() > 0)
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .limit(30)
        .forEach(
            e ->
                System.err.printf(
                    "TRACE   %7.0f %6.0f  %s%n",
                    e.getValue() * TICK_NANOS / 1e6,
                    e.getValue() * TICK_NANOS / 1e3 / Math.max(1, events),
                    e.getKey()));
  }

  /**
   * "postgres" plus the database of a backend (its process title reads {@code postgres: user
   * database host state}), without the run's random suffix; auxiliary processes by their title.
   */
  private static String postgresRole(Path process) throws IOException {
    String title = Files.readString(process.resolve("cmdline")).replace('\0', ' ').trim();
    String[] words = title.split(" ");
    if (words.length >= 3 && words[0].equals("postgres:") && title.contains("(")) {
      return "postgres " + words[2].replaceAll("_[a-z0-9]+$", "");
    }
    return title.length() > 40 ? title.substring(0, 40) : title;
  }

  private static Map<String, Long> ticks(Path dir, boolean threadsOfOneProcess) {
    Map<String, Long> out = new HashMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "[0-9]*")) {
      for (Path p : entries) {
        try {
          String stat = Files.readString(p.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          if (threadsOfOneProcess) {
            name = name.replaceAll("[0-9]+", "#"); // one line per pool
          } else if (name.equals("java")) {
            name = "java " + p.getFileName();
          } else if (name.equals("postgres")) {
            name = postgresRole(p);
          }
          out.merge(name, ticks, Long::sum);
        } catch (IOException | RuntimeException e) {
          // the thread or process ended meanwhile
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return out;
  }
}
