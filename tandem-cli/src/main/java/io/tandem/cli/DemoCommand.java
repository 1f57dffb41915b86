package io.tandem.cli;

import io.tandem.examples.outbox.DemoReport;
import io.tandem.examples.outbox.DemoSettings;
import io.tandem.examples.outbox.OutboxDemo;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tandem demo}: the outbox flow end to end, with a relay killed after the ack. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "An order service confirms N orders (business row + outbox row in one transaction),",
      "relays publish them to Kafka, a billing service applies them through its inbox.",
      "A relay is killed after the broker's ack and before marking, so duplicates occur.",
      "Exit status 0 only when lost = 0 and duplicate side effects = 0."
    })
final class DemoCommand implements Callable<Integer> {

  @Option(
      names = "--orders",
      defaultValue = "1000",
      description = "Orders to confirm (default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--writers",
      defaultValue = "4",
      description = "Concurrent writers (default ${DEFAULT-VALUE}).")
  int writers;

  @Option(
      names = "--relays",
      defaultValue = "2",
      description = "Healthy relay instances (default ${DEFAULT-VALUE}).")
  int relays;

  @Option(
      names = "--relay-crashes",
      defaultValue = "1",
      description = "Relays killed after the ack, before marking (default ${DEFAULT-VALUE}).")
  int relayCrashes;

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
      defaultValue = "PT3M",
      description = "How long to wait for delivery, ISO-8601 (default ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration timeout;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    DemoSettings settings =
        new DemoSettings(
            orders,
            writers,
            relays,
            relayCrashes,
            blankToNull(jdbcUrl),
            blankToNull(kafkaBootstrap),
            timeout);
    DemoReport report = new OutboxDemo(settings, System.err).run();
    System.out.print(json ? report.toJson() + System.lineSeparator() : report.toTable());
    return report.ok() ? 0 : 1;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
