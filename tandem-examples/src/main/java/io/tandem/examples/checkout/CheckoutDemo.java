package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Redaction;
import io.tandem.examples.Check;
import io.tandem.saga.SagaStatus;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaBrokerProcess;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Runs N checkouts through the {@link CheckoutSystem} with a failure mix and checks the outcome
 * from the databases.
 *
 * <p>The mix follows from the data: a checkout paid with a card ending in {@value
 * PaymentService#DECLINED_CARD_SUFFIX} is declined (the order is cancelled); a checkout of the
 * sold-out product fails at the pivot (the payment is refunded, then the order cancelled); every
 * other checkout completes, its shipping retried through the carrier's transient failures. At most
 * {@code inFlight} sagas run at once; the demo starts the next as one ends.
 */
public final class CheckoutDemo {
  /** The product the demo never stocks: checkouts of it end out of stock. */
  public static final String SOLD_OUT = "sku-sold-out";

  /** How many products the demo stocks: sku-1 to sku-8. */
  public static final int PRODUCTS = 8;

  /**
   * How long a step waits for its reply before its command is sent again; a compensatable step is
   * sent three times before the saga compensates, so a takeover after a kill (the relay's lease,
   * the consumer group's session timeout, a new JVM) fits well within.
   */
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);

  /**
   * The embedded broker's JVM options: a demo is a short run on a small machine, where the C2
   * compiler's work competes with the broker's own for the cores and does not pay for itself before
   * the run ends; C1 alone compiles a fraction of that and starts fast.
   */
  static final List<String> SHORT_RUN_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  /** Checkouts run before the timed ones, through every path: see {@link #warmUpPlan()}. */
  static final int WARM_UP = 24;

  /** How often the driver looks for ended sagas, to start the next ones. */
  private static final long POLL_MILLIS = 10;

  private static final String GOOD_CARD = "4242424242424242";
  private static final String DECLINED_CARD = "4000000000000002";

  /** The MariaDB tried when none is configured: the machine's own, as CI runs it. */
  static final String LOCAL_MARIADB =
      "jdbc:mariadb://127.0.0.1:3306/test?user=root&connectTimeout=2000";

  private final CheckoutDemoSettings settings;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private final boolean liveLine;
  private final Function<String, MeterRegistry> serviceMeters;

  /**
   * @param progress where progress goes (stderr in the CLI), or null
   * @param liveLine rewrite one progress line in place (a terminal) instead of printing lines
   */
  public CheckoutDemo(CheckoutDemoSettings settings, PrintStream progress, boolean liveLine) {
    this(settings, progress, liveLine, service -> new SimpleMeterRegistry());
  }

  /**
   * As above, each service of this JVM counting into {@code serviceMeters}'s registry for it (see
   * {@link CheckoutSystemBuilder#serviceMeters}).
   */
  public CheckoutDemo(
      CheckoutDemoSettings settings,
      PrintStream progress,
      boolean liveLine,
      Function<String, MeterRegistry> serviceMeters) {
    this.settings = settings;
    this.progress = progress;
    this.liveLine = liveLine;
    this.serviceMeters = serviceMeters;
  }

  /** A planned checkout and how it should end. */
  public record Planned(Checkout checkout, boolean declined, boolean outOfStock) {}

  /** The checkouts of a run, from the seed: the same settings give the same mix. */
  public static List<Planned> plan(CheckoutDemoSettings s) {
    Random random = new Random(s.seed());
    List<Planned> plan = new ArrayList<>(s.checkouts());
    for (int i = 1; i <= s.checkouts(); i++) {
      double r = random.nextDouble();
      boolean declined = r < s.declineRate();
      boolean outOfStock = !declined && r < s.declineRate() + s.outOfStockRate();
      int product = 1 + random.nextInt(PRODUCTS);
      int quantity = 1 + random.nextInt(3);
      String sku = outOfStock ? SOLD_OUT : "sku-" + product;
      plan.add(
          new Planned(
              new Checkout(
                  "order-" + i,
                  "customer-" + random.nextInt(50),
                  sku,
                  quantity,
                  quantity * (500L + 250L * product),
                  declined ? DECLINED_CARD : GOOD_CARD,
                  i + " Main Street"),
              declined,
              outOfStock));
    }
    return plan;
  }

  /** What to do with the running system once the run was reported, before it is torn down. */
  @FunctionalInterface
  public interface WhileRunning {
    void hold(CheckoutSystem system, CheckoutReport report) throws Exception;
  }

  /**
   * Client settings (TLS, SASL) every Kafka client of the demo gets for the Kafka of {@code
   * kafkaBootstrap}, its child processes through their environment; none by default. Never printed.
   */
  public CheckoutDemo kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  /** Runs the demo; every server and database it started or created is gone afterwards. */
  public CheckoutReport run() throws Exception {
    return run(null);
  }

  /**
   * Runs the demo, then hands the still running system and its report to {@code whileRunning}
   * (null: nothing) and tears everything down when it returns.
   */
  public CheckoutReport run(WhileRunning whileRunning) throws Exception {
    long start = System.nanoTime();
    say(
        "starting PostgreSQL (%s) and Kafka (%s)",
        settings.jdbcUrl() == null ? "embedded" : Redaction.redact(settings.jdbcUrl()),
        settings.kafkaBootstrap() == null ? "embedded, own process" : settings.kafkaBootstrap());
    KafkaBrokerProcess kafkaProcess =
        settings.kafkaBootstrap() == null ? KafkaBrokerProcess.start(SHORT_RUN_JVM) : null;
    try (PostgresServer postgres =
            settings.jdbcUrl() == null
                ? PostgresServer.embedded().start()
                : PostgresServer.external(settings.jdbcUrl());
        KafkaBroker kafka =
            KafkaBroker.external(
                kafkaProcess != null ? kafkaProcess.bootstrapServers() : settings.kafkaBootstrap(),
                kafkaProcess != null ? Map.of() : kafkaClient)) {
      long serversMillis = millisSince(start);
      if (kafkaProcess != null || settings.jdbcUrl() == null) {
        say("servers up in %.1f s", serversMillis / 1000.0);
      }
      DatabaseServer paymentServer = paymentServer(postgres);
      try (CheckoutSystem system =
          CheckoutSystem.builder()
              .postgres(postgres)
              .paymentDatabase(paymentServer)
              .kafka(kafka)
              .carrier(ShippingService.Carrier.flaky(settings.shippingFailureRate()))
              .stepTimeout(STEP_TIMEOUT)
              .orchestratorInProcess(settings.orchestratorKills() == 0)
              .serviceMeters(serviceMeters)
              .start()) {
        CheckoutReport report = run(system, start, serversMillis);
        if (whileRunning != null) {
          whileRunning.hold(system, report);
        }
        return report;
      }
    } finally {
      if (kafkaProcess != null) {
        kafkaProcess.close();
      }
    }
  }

  private DatabaseServer paymentServer(PostgresServer postgres) {
    if (!settings.useMariaDb()) {
      say("payment service on PostgreSQL (MariaDB not wanted)");
      return postgres;
    }
    String configured =
        settings.mariadbUrl() != null ? settings.mariadbUrl() : System.getenv("TANDEM_MARIADB_URL");
    if (configured != null && !configured.isBlank()) {
      say("payment service on MariaDB at %s", Redaction.redact(configured));
      return MariaDbServer.external(
          configured.strip()); // configured: fails when it does not answer
    }
    String fallback = LOCAL_MARIADB;
    try {
      MariaDbServer server = MariaDbServer.external(fallback);
      say("payment service on MariaDB at 127.0.0.1:3306");
      return server;
    } catch (IllegalStateException e) {
      say("no MariaDB answers at 127.0.0.1:3306; payment service on PostgreSQL");
      return postgres;
    }
  }

  /** Runs the checkouts on a started system and reads the report back. */
  private CheckoutReport run(CheckoutSystem system, long start, long serversMillis)
      throws Exception {
    List<Planned> warmUp = warmUpPlan();
    List<Planned> plan = plan(settings);
    for (int p = 1; p <= PRODUCTS; p++) {
      system.inventory().addProduct("sku-" + p, 3 * (settings.checkouts() + warmUp.size()));
    }
    system.inventory().addProduct(SOLD_OUT, 0);
    if (!system.awaitReady(Duration.ofSeconds(60))) {
      say("the consumers were not all assigned their partitions within 60 s; going on");
    }
    long readyMillis = millisSince(start);
    say(
        "servers up in %.1f s; 5 databases with their schemas, relays and consumers ready %.1f s"
            + " later",
        serversMillis / 1000.0, (readyMillis - serversMillis) / 1000.0);
    try (OrchestratorProcesses orchestrators = new OrchestratorProcesses(system)) {
      orchestrators.startNext();
      long warmUpStart = System.nanoTime();
      drive(system, warmUp, null, orchestrators, false);
      long startupMillis = millisSince(start);
      say(
          "warmed up in %.1f s with %d checkouts through every path (completed, declined, sold"
              + " out, shipping retried): the JVMs compiled the hot code and every connection met"
              + " its tables; they are checked below, not timed",
          millisSince(warmUpStart) / 1000.0, warmUp.size());
      say(
          "running %d %s, at most %d at once (decline rate %.2f, out-of-stock rate %.2f,"
              + " shipping failure rate %.2f, orchestrator kills %d)",
          settings.checkouts(),
          settings.checkouts() == 1 ? "checkout" : "checkouts",
          settings.inFlight(),
          settings.declineRate(),
          settings.outOfStockRate(),
          settings.shippingFailureRate(),
          settings.orchestratorKills());
      long runStart = System.nanoTime();
      Set<UUID> measured = new HashSet<>();
      drive(system, plan, measured, orchestrators, true);
      long runMillis = millisSince(runStart);
      List<Planned> all = new ArrayList<>(warmUp);
      all.addAll(plan);
      CheckoutReport report =
          report(
              system,
              all,
              measured,
              warmUp.size(),
              start,
              new CheckoutReport.Timings(serversMillis, startupMillis, runMillis),
              orchestrators.kills());
      orchestrators.finish(report.invariantsOk());
      return report;
    }
  }

  /**
   * The warm-up's checkouts: {@value #WARM_UP} of them, one in eight declined and one in eight sold
   * out, so that every path of the saga (and of each service) runs before the timed ones.
   */
  static List<Planned> warmUpPlan() {
    List<Planned> plan = new ArrayList<>(WARM_UP);
    for (int i = 1; i <= WARM_UP; i++) {
      boolean declined = i % 8 == 3;
      boolean outOfStock = i % 8 == 6;
      int product = 1 + i % PRODUCTS;
      plan.add(
          new Planned(
              new Checkout(
                  "warm-up-" + i,
                  "customer-" + i % 50,
                  outOfStock ? SOLD_OUT : "sku-" + product,
                  1,
                  500L + 250L * product,
                  declined ? DECLINED_CARD : GOOD_CARD,
                  i + " Warm-up Street"),
              declined,
              outOfStock));
    }
    return plan;
  }

  /**
   * Starts the checkouts of {@code plan}, at most {@code inFlight} at once, the next as soon as one
   * ends, until every one ended or the timeout passed. The ids of the sagas go into {@code ids}
   * when given; {@code timed} runs show progress and may kill the orchestrator.
   */
  private void drive(
      CheckoutSystem system,
      List<Planned> plan,
      Set<UUID> ids,
      OrchestratorProcesses orchestrators,
      boolean timed)
      throws Exception {
    Map<SagaStatus, Long> before = system.statusCounts();
    long endedBefore = ended(before);
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    long runStart = System.nanoTime();
    long lastPrint = 0;
    int started = 0;
    int total = plan.size();
    Map<SagaStatus, Long> counts = before;
    while (System.nanoTime() < deadline) {
      counts = system.statusCounts();
      long ended = ended(counts) - endedBefore;
      if (ended >= total) {
        break;
      }
      if (timed
          && orchestrators.kills() < settings.orchestratorKills()
          && ended
              >= (long) total * (orchestrators.kills() + 1) / (settings.orchestratorKills() + 1)) {
        orchestrators.killAndReplace(started - ended);
      }
      while (started < total && started - ended < settings.inFlight()) {
        UUID id = system.checkout(plan.get(started++).checkout());
        if (ids != null) {
          ids.add(id);
        }
      }
      if (timed
          && System.nanoTime() - lastPrint > TimeUnit.MILLISECONDS.toNanos(liveLine ? 250 : 2000)) {
        lastPrint = System.nanoTime();
        progressLine(started, counts, ended, runStart);
      }
      TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
    }
    if (timed) {
      progressLine(started, counts, ended(counts) - endedBefore, runStart);
      if (liveLine && progress != null) {
        progress.println();
      }
    }
    if (System.nanoTime() >= deadline) {
      say("timed out after %s waiting for every saga to end", settings.timeout());
    }
  }

  private static long ended(Map<SagaStatus, Long> counts) {
    return counts.get(SagaStatus.COMPLETED)
        + counts.get(SagaStatus.COMPENSATED)
        + counts.get(SagaStatus.STUCK);
  }

  private void progressLine(int started, Map<SagaStatus, Long> counts, long ended, long runStart) {
    if (progress == null) {
      return;
    }
    double seconds = Math.max(1e-3, (System.nanoTime() - runStart) / 1e9);
    String line =
        String.format(
            Locale.ROOT,
            "[demo] started %d/%d  completed %d  compensated %d  running %d  compensating %d"
                + "  stuck %d  %.0f sagas/s",
            started,
            settings.checkouts(),
            counts.get(SagaStatus.COMPLETED),
            counts.get(SagaStatus.COMPENSATED),
            counts.get(SagaStatus.RUNNING),
            counts.get(SagaStatus.COMPENSATING),
            counts.get(SagaStatus.STUCK),
            ended / seconds);
    if (liveLine) {
      progress.print("\r" + line + "   ");
    } else {
      progress.println(line);
    }
    progress.flush();
  }

  private CheckoutReport report(
      CheckoutSystem system,
      List<Planned> plan,
      Set<UUID> measured,
      int warmUpCheckouts,
      long start,
      CheckoutReport.Timings timings,
      int orchestratorKills)
      throws Exception {
    CheckoutInvariants invariants = system.invariants();
    long plannedDeclined = plan.stream().filter(Planned::declined).count();
    long plannedOutOfStock = plan.stream().filter(Planned::outOfStock).count();
    long plannedCompleted = plan.size() - plannedDeclined - plannedOutOfStock;
    List<String> violations = new ArrayList<>(invariants.violations());
    boolean asPlanned =
        invariants.sagas() == plan.size()
            && invariants.declined() == plannedDeclined
            && invariants.outOfStock() == plannedOutOfStock
            && invariants.completed() == plannedCompleted;
    if (!asPlanned) {
      violations.add(
          String.format(
              Locale.ROOT,
              "outcomes differ from the plan: %d sagas, %d completed, %d declined, %d out of"
                  + " stock; planned %d, %d, %d, %d",
              invariants.sagas(),
              invariants.completed(),
              invariants.declined(),
              invariants.outOfStock(),
              plan.size(),
              plannedCompleted,
              plannedDeclined,
              plannedOutOfStock));
    }
    List<Check> checks = new ArrayList<>(invariants.checks());
    checks.add(
        new Check(
            String.format(
                Locale.ROOT,
                "every checkout ended as its data said (the warm-up's included): %d of %d planned"
                    + " sagas ran; %d declined cards cancelled, %d sold-out orders refunded then"
                    + " cancelled, %d completed",
                invariants.sagas(),
                plan.size(),
                plannedDeclined,
                plannedOutOfStock,
                plannedCompleted),
            asPlanned));
    List<SagaTime> times =
        system.sagaTimes().stream().filter(t -> measured.contains(t.sagaId())).toList();
    List<Double> millis =
        times.stream().map(SagaTime::millis).sorted().collect(Collectors.toList());
    double span = SagaTime.spanMillis(times);
    return new CheckoutReport(
        invariants.sagas(),
        invariants.completed(),
        invariants.compensated(),
        invariants.stuck(),
        invariants.running(),
        invariants.declined(),
        invariants.outOfStock(),
        plannedDeclined,
        plannedOutOfStock,
        system.shipping().carrierFailures(),
        invariants.chargedCents() - invariants.refundedCents(),
        invariants.confirmedCents(),
        checks,
        violations,
        span > 0 ? millis.size() / (span / 1000) : 0,
        percentile(millis, 0.50),
        percentile(millis, 0.99),
        millisSince(start),
        timings,
        warmUpCheckouts,
        system.paymentOnMariaDb() ? "mariadb" : "postgresql",
        "orchestration",
        orchestratorKills);
  }

  static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  /**
   * The orchestrator as its own process ({@link OrchestratorMain}), when the run kills it: one
   * process at a time, each killed with {@code SIGKILL} and followed by the next. Nothing when the
   * run kills none (the orchestrator then runs in this JVM).
   */
  private final class OrchestratorProcesses implements AutoCloseable {
    private final CheckoutSystem system;
    private Path dir;
    private JvmProcess current;
    private int started;
    private int kills;

    OrchestratorProcesses(CheckoutSystem system) {
      this.system = system;
    }

    int kills() {
      return kills;
    }

    void startNext() throws IOException, InterruptedException {
      if (settings.orchestratorKills() == 0) {
        return;
      }
      if (dir == null) {
        dir = Files.createTempDirectory("tandem-demo-orchestrator-");
      }
      String name = "orchestrator-" + ++started;
      current = OrchestratorMain.startProcess(system, dir, name, STEP_TIMEOUT, List.of());
      current.awaitOutput(OrchestratorMain.READY + " " + name, Duration.ofSeconds(60));
      say("%s runs as its own process (log: %s)", name, current.log());
    }

    void killAndReplace(long inFlight) throws IOException, InterruptedException {
      current.kill();
      kills++;
      if (liveLine && progress != null) {
        progress.println(); // below the live progress line
      }
      say(
          "killed %s with SIGKILL, %d sagas in flight; a new process carries them on",
          current.name(), inFlight);
      startNext();
    }

    /** Stops the running process; its logs are deleted after a run whose invariants held. */
    void finish(boolean ok) throws InterruptedException, IOException {
      close();
      if (dir == null) {
        return;
      }
      if (ok) {
        try (var files = Files.walk(dir)) {
          for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      } else {
        say("the orchestrator processes' logs are kept in %s", dir);
      }
      dir = null;
    }

    @Override
    public void close() throws InterruptedException {
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }

  static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[demo] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
