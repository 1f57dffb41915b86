package io.tandem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU time of processes and of the whole machine, from {@code /proc} (Linux; zero elsewhere), so
 * that a benchmark can say which process a run's time went to.
 */
final class ProcessCpu {
  private static final long TICK_MILLIS = 10; // USER_HZ 100

  private ProcessCpu() {}

  /** CPU milliseconds (user + system) process {@code pid} has used so far, its threads included. */
  static long millis(long pid) {
    long[] f = stat(pid);
    return f == null ? 0 : (f[0] + f[1]) * TICK_MILLIS;
  }

  /**
   * CPU milliseconds of a PostgreSQL server: its postmaster with every child it has waited for,
   * plus the children alive now. {@code backendPid} is any backend of the server.
   */
  static long postgresServerMillis(long backendPid) {
    long postmaster = parent(backendPid);
    long[] f = stat(postmaster);
    if (f == null) {
      return 0;
    }
    long ticks = f[0] + f[1] + f[2] + f[3];
    List<ProcessHandle> children =
        ProcessHandle.of(postmaster).map(h -> h.children().toList()).orElse(List.of());
    for (ProcessHandle child : children) {
      long[] c = stat(child.pid());
      if (c != null) {
        ticks += c[0] + c[1];
      }
    }
    return ticks * TICK_MILLIS;
  }

  /**
   * Busy CPU milliseconds of the whole machine, summed over its cores, since boot: user, nice,
   * system, irq and softirq (not idle, iowait, steal, nor guest, which user already holds).
   */
  static long machineBusyMillis() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i : new int[] {1, 2, 3, 6, 7}) {
        busy += Long.parseLong(f[i]);
      }
      return busy * TICK_MILLIS;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** utime, stime, cutime, cstime in ticks; null when the process is gone. */
  private static long[] stat(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return new long[] {
        Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])
      };
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static long parent(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
