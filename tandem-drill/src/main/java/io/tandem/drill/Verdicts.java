package io.tandem.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Turns what a checker read into PASS or FAIL, with the reasons. */
final class Verdicts {
  private Verdicts() {}

  static DrillResult outbox(
      String name,
      Tally t,
      long faultAtNanos,
      long caughtUpAtNanos,
      boolean stalled,
      boolean settled,
      boolean faultHappened,
      List<String> detail,
      DrillSettings settings) {
    List<String> lines = new ArrayList<>(detail);
    List<String> failures = new ArrayList<>();
    if (!faultHappened) {
      failures.add("the fault did not happen as planned, so nothing was proven");
    }
    if (!settled) {
      failures.add(
          stalled
              ? "the system stopped making progress for "
                  + Scenario.STALL.toSeconds()
                  + " s before every committed event had its effect"
              : "the system did not settle within " + settings.timeout().toSeconds() + " s");
    }
    if (t.committed() < settings.events()) {
      failures.add(
          "the service committed " + t.committed() + " of " + settings.events() + " changes");
    }
    if (t.lost() > 0) {
      failures.add(t.lost() + " committed event(s) lost");
    }
    if (t.duplicateSideEffects() > 0) {
      failures.add(t.duplicateSideEffects() + " side effect(s) happened twice");
    }
    if (t.orderViolations() > 0) {
      failures.add(t.orderViolations() + " event(s) applied out of per-aggregate order");
    }
    failures.forEach(f -> lines.add("FAIL: " + f));
    long recovery =
        settled && caughtUpAtNanos > 0
            ? Math.max(0, TimeUnit.NANOSECONDS.toMillis(caughtUpAtNanos - faultAtNanos))
            : -1;
    return new DrillResult(
        name,
        failures.isEmpty() ? DrillResult.Verdict.PASS : DrillResult.Verdict.FAIL,
        t.committed(),
        t.published(),
        t.delivered(),
        t.duplicatesDelivered(),
        t.duplicateSideEffects(),
        t.lost(),
        t.orderViolations(),
        recovery,
        lines);
  }
}
