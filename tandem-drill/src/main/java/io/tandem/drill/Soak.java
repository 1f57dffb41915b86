package io.tandem.drill;

import io.tandem.examples.checkout.CheckoutDemo;
import io.tandem.examples.checkout.CheckoutDemoSettings;
import io.tandem.examples.checkout.CheckoutSystem;
import io.tandem.examples.checkout.OrchestratorMain;
import io.tandem.testkit.JvmProcess;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code tandem soak}: the outbox flow (a writing service, two relays, two consumers, each a
 * process) and the checkout (its services in this process, two orchestrator processes) run side by
 * side for a while, under steady load, while every {@code killEvery} one relay, consumer or
 * orchestrator, picked at random, is killed with SIGKILL and replaced, and every {@code
 * brokerRestartEvery} the Kafka broker is stopped for 5 s and started again. At the end the faults
 * stop, the system settles, and the checker reads the databases and the broker: every committed
 * change applied exactly once in order, every saga ended with the checkout's invariants held.
 */
public final class Soak {

  /** How long a soak runs and how often it strikes. */
  public record Settings(
      Duration duration,
      Duration killEvery,
      Duration brokerRestartEvery,
      int changesPerSecond,
      int checkoutsPerSecond,
      long seed,
      DrillSettings drill) {
    public Settings {
      if (duration.toSeconds() < 20) {
        throw new IllegalArgumentException("--duration must be at least 20s, was " + duration);
      }
      if (killEvery.toSeconds() < 2 || brokerRestartEvery.toSeconds() < 10) {
        throw new IllegalArgumentException(
            "--kill-every must be at least 2s and --broker-restart-every at least 10s, were "
                + killEvery
                + " and "
                + brokerRestartEvery);
      }
      if (changesPerSecond < 1 || checkoutsPerSecond < 1) {
        throw new IllegalArgumentException("the offered rates must be at least 1 per second");
      }
    }
  }

  private static final Duration BROKER_DOWN = Duration.ofSeconds(5);

  private final Settings settings;
  private final PrintStream progress;
  private final Random random;
  private int kills;
  private final int[] killsByKind = new int[3];
  private final java.util.ArrayDeque<Integer> nextKinds = new java.util.ArrayDeque<>();
  private int brokerRestarts;

  private Soak(Settings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
    this.random = new Random(settings.seed());
  }

  /** Runs a soak and returns its two verdicts: {@code soak-outbox} and {@code soak-checkout}. */
  public static DrillReport run(Settings settings, PrintStream progress) throws Exception {
    return new Soak(settings, progress).run();
  }

  private DrillReport run() throws Exception {
    long seconds = settings.duration().toSeconds();
    int changes = (int) Math.max(20, settings.changesPerSecond() * seconds);
    int sagas = (int) Math.max(10, settings.checkoutsPerSecond() * seconds);
    // One change per commit, as a service under steady load commits them.
    DrillSettings drill = settings.drill().toBuilder().events(changes).changesPerCommit(1).build();
    say("starting servers...");
    try (DrillEnvironment env = DrillEnvironment.start(drill)) {
      if (!env.kafka().isEmbedded()) {
        throw new IllegalArgumentException(
            "a soak restarts the broker: run it on the embedded one (leave out --kafka-bootstrap)");
      }
      try (Scenario s =
              new Scenario("soak", drill, env.postgres(), env.postgres(), env.kafka(), false);
          CheckoutSystem checkout = SagaDrill.checkoutSystem(env, 1_000_000)) {
        Path dir = drill.workDir().resolve("soak-" + checkout.topology().prefix());
        List<JvmProcess> relays =
            new ArrayList<>(List.of(s.relayProcess(null), s.relayProcess(null)));
        List<JvmProcess> consumers =
            new ArrayList<>(List.of(s.consumerProcess(null), s.consumerProcess(null)));
        int[] orchestratorNo = {0};
        Supplier<JvmProcess> newOrchestrator =
            () ->
                OrchestratorMain.startProcess(
                    checkout,
                    dir,
                    "orchestrator-" + (++orchestratorNo[0]),
                    Duration.ofSeconds(5),
                    List.of());
        List<JvmProcess> orchestrators =
            new ArrayList<>(List.of(newOrchestrator.get(), newOrchestrator.get()));
        try {
          Scenario.awaitAllReady(relays.toArray(JvmProcess[]::new));
          Scenario.awaitAllReady(consumers.toArray(JvmProcess[]::new));
          for (JvmProcess o : orchestrators) {
            o.awaitOutput(OrchestratorMain.READY, Scenario.START);
          }
          JvmProcess service = s.serviceProcess(null, settings.changesPerSecond());
          service.awaitOutput(RoleMain.READY, Scenario.START);
          say(
              "running for %s: %d changes, %d checkouts; a kill every %s, the broker restarted every %s",
              settings.duration(),
              changes,
              sagas,
              settings.killEvery(),
              settings.brokerRestartEvery());
          List<CheckoutDemo.Planned> plan =
              CheckoutDemo.plan(
                  new CheckoutDemoSettings(
                      sagas,
                      1,
                      0.1,
                      0.1,
                      0.2,
                      null,
                      null,
                      null,
                      false,
                      drill.timeout(),
                      settings.seed()));
          long start = System.nanoTime();
          long end = start + settings.duration().toNanos();
          long nextKill = start + settings.killEvery().toNanos();
          long nextBroker = start + settings.brokerRestartEvery().toNanos();
          int submitted = 0;
          while (System.nanoTime() < end) {
            long now = System.nanoTime();
            int due =
                (int) Math.min(plan.size(), (now - start) / 1e9 * settings.checkoutsPerSecond());
            for (; submitted < due; submitted++) {
              checkout.checkout(plan.get(submitted).checkout());
            }
            if (now >= nextBroker) {
              restartBroker(env);
              nextBroker += settings.brokerRestartEvery().toNanos();
            } else if (now >= nextKill) {
              killOne(s, relays, consumers, orchestrators, newOrchestrator);
              nextKill += settings.killEvery().toNanos();
            }
            TimeUnit.MILLISECONDS.sleep(100);
          }
          for (; submitted < plan.size(); submitted++) {
            checkout.checkout(plan.get(submitted).checkout());
          }
          long faultsEnded = System.nanoTime();
          say(
              "faults stopped after %d kills and %d broker restarts; settling...",
              kills, brokerRestarts);
          List<String> detail = new ArrayList<>();
          detail.add(
              String.format(
                  Locale.ROOT,
                  "%s under load; %d processes killed with SIGKILL (%d relays, %d consumers, %d"
                      + " orchestrators, in random order, each replaced), the broker restarted %d"
                      + " times",
                  settings.duration(),
                  kills,
                  killsByKind[0],
                  killsByKind[1],
                  killsByKind[2],
                  brokerRestarts));
          boolean settled = s.awaitSettled(service);
          DrillResult outbox = s.verdict(faultsEnded, settled, kills > 0, new ArrayList<>(detail));
          DrillResult sagasResult = checkoutVerdict(checkout, sagas, faultsEnded, detail, drill);
          return new DrillReport(List.of(rename(outbox, "soak-outbox"), sagasResult));
        } finally {
          for (List<JvmProcess> group : List.of(relays, consumers, orchestrators)) {
            for (JvmProcess p : group) {
              p.close();
            }
          }
          s.closeProcesses();
        }
      }
    }
  }

  private void killOne(
      Scenario s,
      List<JvmProcess> relays,
      List<JvmProcess> consumers,
      List<JvmProcess> orchestrators,
      Supplier<JvmProcess> newOrchestrator)
      throws InterruptedException {
    if (nextKinds.isEmpty()) {
      // Each round of three kills strikes every kind once, in a random order.
      List<Integer> round = new ArrayList<>(List.of(0, 1, 2));
      java.util.Collections.shuffle(round, random);
      nextKinds.addAll(round);
    }
    int kind = nextKinds.poll();
    killsByKind[kind]++;
    List<JvmProcess> group = kind == 0 ? relays : kind == 1 ? consumers : orchestrators;
    JvmProcess victim = group.remove(random.nextInt(group.size()));
    victim.kill();
    kills++;
    JvmProcess replacement =
        kind == 0
            ? s.relayProcess(null)
            : kind == 1 ? s.consumerProcess(null) : newOrchestrator.get();
    group.add(replacement);
    say("killed %s (SIGKILL); %s starts", victim.name(), replacement.name());
  }

  private void restartBroker(DrillEnvironment env) throws InterruptedException {
    env.kafka().stop();
    TimeUnit.MILLISECONDS.sleep(BROKER_DOWN.toMillis());
    env.kafka().restart();
    brokerRestarts++;
    say("broker stopped for %d s and started again", BROKER_DOWN.toSeconds());
  }

  private static DrillResult checkoutVerdict(
      CheckoutSystem checkout, int sagas, long faultsEnded, List<String> base, DrillSettings drill)
      throws Exception {
    boolean settled =
        Scenario.await(
            () -> {
              try {
                return SagaDrill.ended(checkout.statusCounts()) >= sagas;
              } catch (SQLException e) {
                return false;
              }
            },
            drill.timeout());
    long recovery = settled ? (System.nanoTime() - faultsEnded) / 1_000_000 : -1;
    return SagaDrill.verdict(
        "soak-checkout", checkout, sagas, 0, recovery, true, new ArrayList<>(base));
  }

  private static DrillResult rename(DrillResult r, String name) {
    return new DrillResult(
        name,
        r.result(),
        r.committed(),
        r.published(),
        r.delivered(),
        r.duplicatesDelivered(),
        r.duplicateSideEffects(),
        r.lost(),
        r.orderViolations(),
        r.recoveryMs(),
        r.detail());
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[soak] " + String.format(Locale.ROOT, format, args));
    }
  }
}
