package io.tandem.cli;

import io.tandem.examples.checkout.CheckoutDemo;
import io.tandem.examples.checkout.CheckoutDemoSettings;
import io.tandem.examples.checkout.CheckoutReport;
import io.tandem.examples.checkout.ChoreographyDemo;
import io.tandem.examples.outbox.DemoReport;
import io.tandem.examples.outbox.DemoSettings;
import io.tandem.examples.outbox.OutboxDemo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
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

  @Option(
      names = "--kafka-bootstrap",
      defaultValue = "${env:TANDEM_KAFKA_BOOTSTRAP}",
      description = "External Kafka (default: TANDEM_KAFKA_BOOTSTRAP, else embedded).")
  String kafkaBootstrap;

  @Option(
      names = "--timeout",
      description =
          "How long to wait for the run to finish, e.g. 5m or PT5M (default: checkout 5m,"
              + " outbox 3m).",
      converter = DurationConverter.class)
  Duration timeout;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    refuseOptionsOfTheOtherScenario();
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
            blankToNull(kafkaBootstrap),
            blankToNull(mariadbUrl),
            !noMariaDb,
            timeout != null ? timeout : CheckoutDemoSettings.DEFAULTS.timeout(),
            seed,
            orchestratorKills);
    CheckoutReport report =
        mode == Mode.choreography
            ? new ChoreographyDemo(settings, System.err).run()
            : new CheckoutDemo(settings, System.err, System.console() != null).run();
    System.out.print(json ? report.toJson() + System.lineSeparator() : report.toTable());
    return report.invariantsOk() ? 0 : 1;
  }

  private int outbox() throws Exception {
    DemoSettings settings =
        new DemoSettings(
            orders,
            writers,
            relays,
            relayCrashes,
            blankToNull(jdbcUrl),
            blankToNull(kafkaBootstrap),
            timeout != null ? timeout : DemoSettings.DEFAULTS.timeout());
    DemoReport report = new OutboxDemo(settings, System.err).run();
    System.out.print(json ? report.toJson() + System.lineSeparator() : report.toTable());
    return report.ok() ? 0 : 1;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
