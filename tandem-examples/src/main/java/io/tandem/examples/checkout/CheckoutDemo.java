package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Redaction;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaBrokerProcess;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

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
  static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);

  /**
   * The embedded broker's JVM options: a demo is a short run on a small machine, where the C2
   * compiler's work competes with the broker's own for the cores and does not pay for itself before
   * the run ends; C1 alone compiles a fraction of that and starts fast.
   */
  static final List<String> SHORT_RUN_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  /**
   * Checkouts run before the timed ones, through every path: see {@link #CheckoutPlan.warmUp()}.
   */
  static final int WARM_UP = 24;

  /** The MariaDB tried when none is configured: the machine's own, as CI runs it. */
  static final String LOCAL_MARIADB =
      "jdbc:mariadb://127.0.0.1:3306/test?user=root&connectTimeout=2000";

  private final CheckoutDemoSettings settings;
  private Map<String, String> kafkaClient = Map.of();
  private final DemoProgress progress;
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
    this.progress = new DemoProgress(progress, liveLine);
    this.serviceMeters = serviceMeters;
  }

  /** A planned checkout and how it should end. */
  public record Planned(Checkout checkout, boolean declined, boolean outOfStock) {}

  /** The checkouts of a run, from the seed: the same settings give the same mix. */
  public static List<Planned> plan(CheckoutDemoSettings s) {
    return CheckoutPlan.of(s);
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
    List<Planned> warmUp = CheckoutPlan.warmUp();
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
    try (OrchestratorProcesses orchestrators =
        new OrchestratorProcesses(system, settings, progress)) {
      CheckoutDriver driver = new CheckoutDriver(settings, progress);
      orchestrators.startNext();
      long warmUpStart = System.nanoTime();
      driver.drive(system, warmUp, null, orchestrators, false);
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
      driver.drive(system, plan, measured, orchestrators, true);
      long runMillis = millisSince(runStart);
      List<Planned> all = new ArrayList<>(warmUp);
      all.addAll(plan);
      CheckoutReport report =
          CheckoutReadback.read(
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

  static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  private void say(String format, Object... args) {
    progress.say(format, args);
  }
}
