package io.tandem.drill;

import io.tandem.core.FaultInjector;
import io.tandem.examples.checkout.CheckoutDemo;
import io.tandem.examples.checkout.CheckoutDemoSettings;
import io.tandem.examples.checkout.CheckoutInvariants;
import io.tandem.examples.checkout.CheckoutOrchestrator;
import io.tandem.examples.checkout.CheckoutSystem;
import io.tandem.examples.checkout.OrchestratorMain;
import io.tandem.examples.checkout.ShippingService;
import io.tandem.outbox.OutboxOperations;
import io.tandem.saga.SagaStatus;
import io.tandem.testkit.JvmProcess;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * {@code orchestrator-crash}: the checkout reference system (order, payment, inventory and shipping
 * services, each with its own database) runs in the drill's process; its orchestrator runs as its
 * own process and halts right after committing a step, in the middle of the sagas. A second
 * orchestrator process takes over. The checker reads the sagas' states and the services' databases.
 */
final class SagaDrill {
  /** Sagas running at once, as a service whose callers wait for their checkouts. */
  static final int IN_FLIGHT = 64;

  private final DrillEnvironment env;
  private final DrillSettings settings;

  SagaDrill(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  DrillResult run(String name) throws Exception {
    int sagas = Math.max(20, settings.events() / 10);
    List<String> detail = new ArrayList<>();
    detail.add(
        settings.protection()
            ? "protection on: a second orchestrator process resumes the sagas from the database"
            : "protection OFF: no orchestrator resumes the sagas of the dead one");
    try (CheckoutSystem system = checkoutSystem(env, 1000)) {
      Path dir = settings.workDir().resolve(name + "-" + system.topology().prefix());
      int killAt = sagas;
      JvmProcess first =
          orchestrator(
              system,
              dir,
              "orchestrator-1",
              Faults.point(FaultInjector.ORCHESTRATOR_AFTER_STEP, "kill", killAt));
      JvmProcess second = null;
      try {
        first.awaitOutput(OrchestratorMain.READY, Scenario.START);
        CheckoutDemoSettings mix =
            new CheckoutDemoSettings(
                sagas, 1, 0.1, 0.1, 0.2, null, null, null, false, settings.timeout(), 7);
        Boolean fired = null;
        long faultAt = 0;
        int started = 0;
        long endedSeen = 0; // read again only when the last reading leaves no slot free
        for (CheckoutDemo.Planned planned : CheckoutDemo.plan(mix)) {
          // a service's callers wait for their checkouts: at most IN_FLIGHT sagas run at once (all
          // of them at once would be a burst test — 10,000 sagas against a 5 s step timeout)
          // (without protection nothing ends after the kill: the rest go at once; a slot that
          // does not free within the drill's timeout stops the pacing, the verdict counts)
          long slotDeadline = System.nanoTime() + settings.timeout().toNanos();
          while (started - endedSeen >= IN_FLIGHT
              && started - (endedSeen = ended(system.statusCounts())) >= IN_FLIGHT
              && (fired == null || second != null)
              && System.nanoTime() < slotDeadline) {
            if (fired == null && !first.isAlive()) {
              fired = killed(first, killAt, detail);
              faultAt = System.nanoTime();
              detail.add(
                  "sagas ended when it died: " + ended(system.statusCounts()) + " of " + sagas);
              second = takeOver(system, dir);
            }
            TimeUnit.MILLISECONDS.sleep(20);
          }
          system.checkout(planned.checkout());
          started++;
        }
        if (fired == null) {
          fired = killed(first, killAt, detail);
          faultAt = System.nanoTime();
          detail.add("sagas ended when it died: " + ended(system.statusCounts()) + " of " + sagas);
          second = takeOver(system, dir);
        }
        Duration wait = settings.protection() ? settings.timeout() : Duration.ofSeconds(15);
        boolean settled =
            Scenario.await(
                () -> {
                  try {
                    return ended(system.statusCounts()) >= sagas;
                  } catch (SQLException e) {
                    return false;
                  }
                },
                wait);
        long recovery = settled ? (System.nanoTime() - faultAt) / 1_000_000 : -1;
        return verdict(name, system, sagas, publishedCommands(system), recovery, fired, detail);
      } finally {
        first.close();
        if (second != null) {
          second.close();
        }
      }
    }
  }

  /**
   * Reads the checkout's sagas and invariants and judges them: every saga ended (the others count
   * as lost), no invariant violated (counted as duplicate side effects), the fault happened.
   */
  static DrillResult verdict(
      String name,
      CheckoutSystem system,
      int sagas,
      long published,
      long recoveryMs,
      boolean faultHappened,
      List<String> detail)
      throws Exception {
    Map<SagaStatus, Long> end = system.statusCounts();
    CheckoutInvariants inv = system.invariants();
    long notEnded = sagas - ended(end);
    detail.add(
        "sagas: "
            + end.getOrDefault(SagaStatus.COMPLETED, 0L)
            + " completed, "
            + end.getOrDefault(SagaStatus.COMPENSATED, 0L)
            + " compensated, "
            + notEnded
            + " not ended (counted as lost); invariant violations (money, stock, order"
            + " state) are counted as duplicate side effects: "
            + inv.violationCount());
    detail.add("duplicates delivered and order violations are not measured for sagas (0)");
    inv.violations().forEach(v -> detail.add("invariant: " + v));
    List<String> failures = new ArrayList<>();
    if (!faultHappened) {
      failures.add("the fault did not happen as planned, so nothing was proven");
    }
    if (notEnded > 0) {
      failures.add(notEnded + " saga(s) did not reach a terminal state");
    }
    if (!inv.ok()) {
      failures.add(inv.violationCount() + " invariant violation(s)");
    }
    failures.forEach(f -> detail.add("FAIL: " + f));
    return new DrillResult(
        name,
        failures.isEmpty() ? DrillResult.Verdict.PASS : DrillResult.Verdict.FAIL,
        sagas,
        published,
        ended(end),
        0,
        inv.violationCount(),
        notEnded,
        0,
        recoveryMs,
        detail);
  }

  /**
   * The checkout system of the saga drills: its services in this process, the orchestrator left to
   * processes, a carrier failing 20% of calls, {@code stock} of every product but the sold-out one.
   */
  static CheckoutSystem checkoutSystem(DrillEnvironment env, int stock) throws Exception {
    CheckoutSystem system =
        CheckoutSystem.builder()
            .postgres(env.postgres())
            .kafka(env.kafka())
            .carrier(ShippingService.Carrier.flaky(0.2))
            .stepTimeout(Duration.ofSeconds(5))
            .orchestratorInProcess(false)
            .start();
    for (int p = 1; p <= CheckoutDemo.PRODUCTS; p++) {
      system.inventory().addProduct("sku-" + p, stock);
    }
    system.inventory().addProduct(CheckoutDemo.SOLD_OUT, 0);
    return system;
  }

  private static boolean killed(JvmProcess first, int killAt, List<String> detail)
      throws InterruptedException {
    return Faults.diedAtItsFault(
        first, "orchestrator killed (SIGKILL) after its transition " + killAt, detail);
  }

  /** The second orchestrator, with protection on; none without. */
  private JvmProcess takeOver(CheckoutSystem system, Path dir) throws Exception {
    if (!settings.protection()) {
      return null;
    }
    JvmProcess second = orchestrator(system, dir, "orchestrator-2", null);
    second.awaitOutput(OrchestratorMain.READY, Scenario.START);
    return second;
  }

  static long ended(Map<SagaStatus, Long> counts) {
    return counts.getOrDefault(SagaStatus.COMPLETED, 0L)
        + counts.getOrDefault(SagaStatus.COMPENSATED, 0L);
  }

  private static JvmProcess orchestrator(
      CheckoutSystem system, Path dir, String instance, String faults) {
    return OrchestratorMain.startProcess(
        system, dir, instance, Duration.ofSeconds(5), Faults.jvmOptions(faults));
  }

  /** Commands the orchestrator's outbox published, read through the library's operations. */
  private static long publishedCommands(CheckoutSystem system) {
    DataSource orchestrator = system.databases().get(CheckoutOrchestrator.NAME);
    return OutboxOperations.create(orchestrator).status().published();
  }
}
