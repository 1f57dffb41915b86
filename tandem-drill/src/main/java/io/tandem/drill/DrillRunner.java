package io.tandem.drill;

import io.tandem.core.Progress;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs failure drills by name. Each drill starts the parts of a system as separate processes
 * against real databases and a real broker, applies one fault, lets the system recover and checks,
 * by reading the databases and the broker, that nothing committed was lost, no side effect happened
 * twice and per-aggregate order held (sagas: every saga ended, invariants held).
 *
 * <pre>{@code
 * DrillReport report = DrillRunner.run(List.of("all"), DrillSettings.defaults(dir), System.err);
 * }</pre>
 */
public final class DrillRunner {

  /** A drill: its name, what it does, and how it runs. */
  record Definition(String name, String description, Body body) {}

  @FunctionalInterface
  interface Body {
    DrillResult run(DrillEnvironment env, String name) throws Exception;
  }

  /** Every drill, in the order {@code all} runs them. */
  static final Map<String, Definition> DRILLS = new LinkedHashMap<>();

  static {
    add(
        "service-crash-after-commit",
        "the writing service dies right after committing; a new instance carries on",
        (env, n) -> new ProcessCrashDrills(env).serviceCrashAfterCommit(n));
    add(
        "relay-crash-after-ack",
        "the relay dies after the broker's ack, before marking published; another relay takes over",
        (env, n) -> new ProcessCrashDrills(env).relayCrashAfterAck(n));
    add(
        "broker-outage",
        "the broker is stopped under load (--outage, default 30 s), then started",
        (env, n) -> new BrokerDrills(env).brokerOutage(n));
    add(
        "broker-failover",
        "the Kafka node leading a partition is killed under load on a 3-node cluster, then"
            + " restarted",
        (env, n) -> new BrokerDrills(env).brokerFailover(n));
    add(
        "duplicate-delivery",
        "messages are delivered twice",
        (env, n) -> new DeliveryFaultDrills(env).duplicateDelivery(n));
    add(
        "out-of-order",
        "versions of an aggregate are delivered shuffled",
        (env, n) -> new DeliveryFaultDrills(env).outOfOrder(n));
    add(
        "consumer-crash-after-commit",
        "a consumer dies after its transaction, before the ack; another consumer takes over",
        (env, n) -> new ProcessCrashDrills(env).consumerCrashAfterCommit(n));
    add(
        "quarantine-replay",
        "a poison event is quarantined, then replayed by the operator",
        (env, n) -> new QuarantineDrill(env).quarantineReplay(n));
    add(
        "orchestrator-crash",
        "an orchestrator dies mid-saga; another resumes its sagas",
        (env, n) -> new SagaDrill(env).run(n));
    add(
        "coordinator-crash",
        "a two-phase coordinator dies after prepare, after its decision and mid phase 2",
        (env, n) -> new XaDrill(env).run(n));
    add(
        "database-restart",
        "the service database crashes under load and restarts",
        (env, n) -> new DatabaseDrills(env).databaseRestart(n));
    add(
        "database-failover",
        "the primary of the services' databases is killed under load and its standby promoted",
        (env, n) -> new DatabaseDrills(env).databaseFailover(n));
    add(
        "cdc-stopped",
        "the CDC relay stops while writes go on; WAL piles up in its slot until the lag alert"
            + " fires; it resumes",
        (env, n) -> new CdcDrill(env).run(n));
  }

  /** The drills that run with the CDC relay ({@code --relay cdc}). */
  static final List<String> CDC_FORMS =
      List.of("relay-crash-after-ack", "database-restart", "cdc-stopped");

  private static void add(String name, String description, Body body) {
    DRILLS.put(name, new Definition(name, description, body));
  }

  private DrillRunner() {}

  /** The drills' names and descriptions, in order. */
  public static Map<String, String> catalog() {
    Map<String, String> c = new LinkedHashMap<>();
    DRILLS.forEach((k, v) -> c.put(k, v.description()));
    return c;
  }

  /**
   * Resolves names ({@code all} or drill names) to drills, in the catalog's order.
   *
   * @throws IllegalArgumentException naming an unknown drill and listing the known ones
   */
  public static List<String> resolve(List<String> names) {
    if (names.isEmpty() || names.contains("all")) {
      return new ArrayList<>(DRILLS.keySet());
    }
    for (String n : names) {
      if (!DRILLS.containsKey(n)) {
        throw new IllegalArgumentException(
            "Unknown drill '" + n + "'. Known drills: all, " + String.join(", ", DRILLS.keySet()));
      }
    }
    List<String> ordered = new ArrayList<>();
    for (String n : DRILLS.keySet()) {
      if (names.contains(n)) {
        ordered.add(n);
      }
    }
    return ordered;
  }

  /**
   * Runs the named drills one after another; progress goes to {@code progress} (may be null). A
   * drill that throws is reported as FAIL with the error, and the others still run.
   */
  public static DrillReport run(List<String> names, DrillSettings settings, PrintStream progress) {
    List<String> selected = resolve(names);
    List<DrillResult> results = new ArrayList<>();
    Progress bar = progress == null ? null : Progress.start("drills", selected.size(), progress);
    say(bar, "starting servers...");
    try (DrillEnvironment env = DrillEnvironment.start(settings)) {
      say(bar, "servers up (%s); logs in %s", env.describe(), settings.workDir());
      for (String name : selected) {
        long start = System.nanoTime();
        say(bar, "%s: %s", name, DRILLS.get(name).description());
        DrillResult r;
        try {
          r =
              settings.cdc() && !CDC_FORMS.contains(name)
                  ? DrillResult.notAvailable(
                      name,
                      "no form with the CDC relay yet (--relay cdc runs "
                          + String.join(", ", CDC_FORMS)
                          + "): not counted as passed")
                  : DRILLS.get(name).body().run(env, name);
        } catch (Exception | AssertionError e) {
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
          }
          r = DrillResult.failed(name, "the drill itself failed: " + e);
        }
        results.add(r);
        say(
            bar,
            "%s: %s in %.1f s (committed %d, delivered %d, lost %d, duplicate side effects %d,"
                + " order violations %d)",
            name,
            r.result(),
            (System.nanoTime() - start) / 1e9,
            r.committed(),
            r.delivered(),
            r.lost(),
            r.duplicateSideEffects(),
            r.orderViolations());
        if (bar != null) {
          bar.advance(1);
        }
      }
    } finally {
      if (bar != null) {
        bar.close();
      }
    }
    return new DrillReport(results);
  }

  private static void say(Progress bar, String format, Object... args) {
    if (bar != null) {
      bar.log("[drill] " + String.format(Locale.ROOT, format, args));
    }
  }
}
