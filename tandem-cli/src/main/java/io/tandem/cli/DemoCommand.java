package io.tandem.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.examples.checkout.CheckoutDemo;
import io.tandem.examples.checkout.CheckoutDemoSettings;
import io.tandem.examples.checkout.CheckoutReport;
import io.tandem.examples.checkout.CheckoutSystem;
import io.tandem.examples.checkout.ChoreographyDemo;
import io.tandem.examples.outbox.DemoReport;
import io.tandem.examples.outbox.DemoSettings;
import io.tandem.examples.outbox.OutboxDemo;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tandem demo}: the checkout saga across four services (default), or the outbox flow with a
 * relay killed after the ack ({@code --scenario outbox}).
 */
@Command(
    name = "demo",
    header = "Runs the checkout saga demo (or --scenario outbox) and checks its invariants.",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Scenario checkout (default): N checkouts run as sagas across an order, a",
      "payment, an inventory and a shipping service, each with its own database,",
      "connected only through Kafka; a mix of declined cards, sold-out products and",
      "transient carrier failures. The invariants (every saga ended, money and stock",
      "conserved, no lost or doubled effect) are read back from the databases.",
      "Scenario outbox: an order service confirms N orders (business row + outbox",
      "row in one transaction), relays publish them to Kafka, a billing service",
      "applies them through its inbox; a relay is killed after the broker's ack.",
      "Exit status 0 only when the invariants hold.",
      ""
    })
final class DemoCommand implements Callable<Integer> {
  enum Scenario {
    checkout,
    outbox
  }

  enum Mode {
    orchestration,
    choreography
  }

  private static final List<String> OUTBOX_ONLY =
      List.of("--orders", "--writers", "--relays", "--relay-crashes");
  private static final List<String> CHECKOUT_ONLY =
      List.of(
          "--mode",
          "--checkouts",
          "--in-flight",
          "--decline-rate",
          "--out-of-stock-rate",
          "--shipping-failure-rate",
          "--seed",
          "--orchestrator-kills",
          "--mariadb-url",
          "--no-mariadb");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--scenario",
      defaultValue = "checkout",
      description = "checkout (default) or outbox.")
  Scenario scenario;

  // ---- checkout ----

  @Option(
      names = "--mode",
      defaultValue = "orchestration",
      description =
          "Checkout saga style: orchestration (default: an orchestrator sends commands) or"
              + " choreography (the services react to each other's events; --in-flight does not"
              + " apply, --shipping-failure-rate is the share of orders whose carrier fails once"
              + " or twice).")
  Mode mode;

  @Option(
      names = "--checkouts",
      defaultValue = "1000",
      description = "Checkouts to run (default ${DEFAULT-VALUE}).")
  int checkouts;

  @Option(
      names = "--in-flight",
      defaultValue = "16",
      description = "Sagas running at once at most (default ${DEFAULT-VALUE}).")
  int inFlight;

  @Option(
      names = "--decline-rate",
      defaultValue = "0.05",
      description = "Share of checkouts with a declined card (default ${DEFAULT-VALUE}).")
  double declineRate;

  @Option(
      names = "--out-of-stock-rate",
      defaultValue = "0.05",
      description =
          "Share of checkouts of a sold-out product: refund, then cancel (default"
              + " ${DEFAULT-VALUE}).")
  double outOfStockRate;

  @Option(
      names = "--shipping-failure-rate",
      defaultValue = "0.1",
      description =
          "Share of carrier calls failing transiently; shipping is retried (default"
              + " ${DEFAULT-VALUE}).")
  double shippingFailureRate;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the failure mix (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--orchestrator-kills",
      defaultValue = "0",
      description =
          "Orchestration: times the orchestrator, then run as its own process, is killed with"
              + " SIGKILL mid-run and a new process carries its sagas on (default"
              + " ${DEFAULT-VALUE}).")
  int orchestratorKills;

  @Option(
      names = "--mariadb-url",
      defaultValue = "${env:TANDEM_MARIADB_URL}",
      description =
          "MariaDB for the payment service (default: TANDEM_MARIADB_URL, else"
              + " 127.0.0.1:3306 as root if it answers, else PostgreSQL).")
  String mariadbUrl;

  @Option(names = "--no-mariadb", description = "Keep the payment service on PostgreSQL.")
  boolean noMariaDb;

  // ---- outbox ----

  @Option(
      names = "--orders",
      defaultValue = "1000",
      description = "Outbox: orders to confirm (default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--writers",
      defaultValue = "4",
      description = "Outbox: concurrent writers (default ${DEFAULT-VALUE}).")
  int writers;

  @Option(
      names = "--relays",
      defaultValue = "2",
      description = "Outbox: healthy relay instances (default ${DEFAULT-VALUE}).")
  int relays;

  @Option(
      names = "--relay-crashes",
      defaultValue = "1",
      description =
          "Outbox: relays killed after the ack, before marking (default ${DEFAULT-VALUE}).")
  int relayCrashes;

  // ---- both ----

  @Option(
      names = "--jdbc-url",
      defaultValue = "${env:TANDEM_JDBC_URL}",
      description =
          "External PostgreSQL (default: TANDEM_JDBC_URL, else embedded). The demo"
              + " creates and drops its own databases there.")
  String jdbcUrl;

  @Mixin KafkaOptions kafka = new KafkaOptions();

  @Option(
      names = "--timeout",
      description =
          "How long to wait for the run to finish, e.g. 5m or PT5M (default: checkout 5m,"
              + " outbox 3m).",
      converter = DurationConverter.class)
  Duration timeout;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Option(
      names = "--dashboard",
      description =
          "Checkout (orchestration): after the run, keep the services' databases and the web"
              + " console open on them (one dashboard per service on 127.0.0.1, from"
              + " --dashboard-port on; their URLs and token are printed) until Ctrl-C.")
  boolean dashboard;

  @Option(
      names = "--dashboard-port",
      defaultValue = "8080",
      description =
          "First port of the demo's dashboards, one per service (default ${DEFAULT-VALUE}; 0:"
              + " any free ports).")
  int dashboardPort;

  /** Released by Ctrl-C (a shutdown hook), or by a test: ends the --dashboard wait. */
  final CountDownLatch stopDashboards = new CountDownLatch(1);

  /** The open dashboards while --dashboard holds the demo (for tests). */
  volatile DemoDashboards dashboards;

  @Override
  public Integer call() throws Exception {
    refuseOptionsOfTheOtherScenario();
    kafka.checked();
    return scenario == Scenario.outbox ? outbox() : checkout();
  }

  private void refuseOptionsOfTheOtherScenario() {
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    for (String option : scenario == Scenario.outbox ? CHECKOUT_ONLY : OUTBOX_ONLY) {
      if (parsed.hasMatchedOption(option)) {
        throw new IllegalArgumentException(
            option
                + " applies to --scenario "
                + (scenario == Scenario.outbox ? "checkout" : "outbox")
                + ", not "
                + scenario);
      }
    }
  }

  private int checkout() throws Exception {
    if (dashboard && mode == Mode.choreography) {
      throw new IllegalArgumentException(
          "--dashboard applies to --mode orchestration: the choreography demo does not keep its"
              + " services running");
    }
    if (mode == Mode.choreography && orchestratorKills > 0) {
      throw new IllegalArgumentException(
          "--orchestrator-kills applies to --mode orchestration: a choreography has no"
              + " orchestrator");
    }
    CheckoutDemoSettings settings =
        new CheckoutDemoSettings(
            checkouts,
            inFlight,
            declineRate,
            outOfStockRate,
            shippingFailureRate,
            blankToNull(jdbcUrl),
            kafka.bootstrapOrNull(),
            blankToNull(mariadbUrl),
            !noMariaDb,
            timeout != null ? timeout : CheckoutDemoSettings.DEFAULTS.timeout(),
            seed,
            orchestratorKills);
    if (mode == Mode.choreography) {
      return print(
          new ChoreographyDemo(settings, System.err)
              .kafkaClientProperties(kafka.clientProperties())
              .run());
    }
    if (!dashboard) {
      return print(
          new CheckoutDemo(settings, System.err, System.console() != null)
              .kafkaClientProperties(kafka.clientProperties())
              .run());
    }
    Map<String, PrometheusMeterRegistry> serviceMeters = new ConcurrentHashMap<>();
    CheckoutDemo demo =
        new CheckoutDemo(
                settings,
                System.err,
                System.console() != null,
                service ->
                    serviceMeters.computeIfAbsent(
                        service, s -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)))
            .kafkaClientProperties(kafka.clientProperties());
    int[] status = new int[1];
    demo.run(
        (system, report) -> {
          status[0] = print(report);
          holdWithDashboards(system.databases(), inOrder(system, serviceMeters), system::running);
        });
    return status[0];
  }

  /** The registries of the services that run here, in the order of the system's databases. */
  private static Map<String, PrometheusMeterRegistry> inOrder(
      CheckoutSystem system, Map<String, PrometheusMeterRegistry> serviceMeters) {
    Map<String, PrometheusMeterRegistry> ordered = new LinkedHashMap<>();
    for (String service : system.databases().keySet()) {
      if (serviceMeters.containsKey(service)) {
        ordered.put(service, serviceMeters.get(service));
      }
    }
    return ordered;
  }

  private int print(CheckoutReport report) {
    System.out.print(json ? report.toJson() + System.lineSeparator() : report.toTable());
    System.out.flush();
    return report.invariantsOk() ? 0 : 1;
  }

  /**
   * Serves the dashboards until Ctrl-C (or SIGTERM), which only ends the wait: the demo then tears
   * its system down in order and the command returns as after any run.
   */
  private void holdWithDashboards(
      Map<String, DataSource> databases,
      Map<String, PrometheusMeterRegistry> serviceMeters,
      Supplier<Map<String, Boolean>> running)
      throws Exception {
    StopSignal.releaseOnSignal(stopDashboards);
    try (DemoDashboards open =
        new DemoDashboards(
            databases, serviceMeters, running, dashboardPort, Duration.ofSeconds(2))) {
      dashboards = open;
      System.err.println("the demo's services stay up; dashboards (Ctrl-C to stop and clean up):");
      open.urls().forEach((service, url) -> System.err.printf("  %-22s %s%n", service, url));
      System.err.println("each service's own meters (Prometheus text; /health beside it):");
      open.metricsUrls().forEach((service, url) -> System.err.printf("  %-22s %s%n", service, url));
      System.err.println("dashboard token (actions need it): " + open.token());
      stopDashboards.await();
      System.err.println("stopping the demo's services and removing its databases");
    } finally {
      dashboards = null;
    }
  }

  private int outbox() throws Exception {
    if (dashboard) {
      throw new IllegalArgumentException(
          "--dashboard applies to --scenario checkout: the outbox demo kills and restarts its"
              + " relays and does not keep them running");
    }
    DemoSettings settings =
        new DemoSettings(
            orders,
            writers,
            relays,
            relayCrashes,
            blankToNull(jdbcUrl),
            kafka.bootstrapOrNull(),
            timeout != null ? timeout : DemoSettings.DEFAULTS.timeout());
    DemoReport report =
        new OutboxDemo(settings, System.err).kafkaClientProperties(kafka.clientProperties()).run();
    System.out.print(json ? report.toJson() + System.lineSeparator() : report.toTable());
    return report.ok() ? 0 : 1;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
