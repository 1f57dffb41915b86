package io.tandem.drill;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The results of a {@code tandem drill} run: a table for people, one JSON object for tools. */
public record DrillReport(List<DrillResult> drills) {

  public DrillReport {
    drills = List.copyOf(drills);
  }

  public long passed() {
    return drills.stream().filter(DrillResult::passed).count();
  }

  public long failed() {
    return drills.stream().filter(d -> d.result() == DrillResult.Verdict.FAIL).count();
  }

  /** Whether no drill failed (NOT_AVAILABLE drills neither pass nor fail). */
  public boolean ok() {
    return failed() == 0;
  }

  public String toJson() {
    StringBuilder b = new StringBuilder("{\"drills\":[");
    for (int i = 0; i < drills.size(); i++) {
      b.append(i == 0 ? "" : ",").append(drills.get(i).toJson());
    }
    return b.append("],\"passed\":")
        .append(passed())
        .append(",\"failed\":")
        .append(failed())
        .append('}')
        .toString();
  }

  public void printTable(PrintStream out) {
    String format = "%-28s %-13s %9s %9s %9s %10s %10s %6s %7s %11s%n";
    out.printf(
        Locale.ROOT,
        format,
        "drill",
        "result",
        "committed",
        "published",
        "delivered",
        "dup.deliv",
        "dup.effect",
        "lost",
        "order",
        "recovery_ms");
    for (DrillResult d : drills) {
      out.printf(
          Locale.ROOT,
          format,
          d.name(),
          d.result(),
          d.committed(),
          d.published(),
          d.delivered(),
          d.duplicatesDelivered(),
          d.duplicateSideEffects(),
          d.lost(),
          d.orderViolations(),
          d.recoveryMs() < 0 ? "-" : Long.toString(d.recoveryMs()));
    }
    out.println();
    for (DrillResult d : drills) {
      out.println(d.name() + ":");
      d.detail().forEach(line -> out.println("  " + line));
    }
    out.printf(
        Locale.ROOT,
        "%npassed %d, failed %d, not available %d%n",
        passed(),
        failed(),
        drills.size() - passed() - failed());
  }
}
