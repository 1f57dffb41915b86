package io.tandem.cli;

import io.tandem.bench.CompareBenchmark;
import io.tandem.bench.CompareReport;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tandem compare}: one transfer as 2PC, saga and outbox, measured side by side. */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    header = "Runs one money transfer as 2PC, as a saga and as outbox + inbox, side by side.",
    description = {
      "Debit an account on PostgreSQL, credit it on MariaDB: as two-phase commit, as an",
      "orchestrated saga and as outbox + inbox, each on fresh databases of the same servers and",
      "the same Kafka. Per approach: transfers/s, p50/p99 until credited, how long the debited row",
      "stays locked, how many reads of a reader beside it saw money in flight, and the time until",
      "both sides are consistent and unblocked after its coordinator / orchestrator / relay is",
      "killed mid-transfer. docs/choosing.md reads the result. Uses --jdbc-url (or",
      "TANDEM_JDBC_URL; max_prepared_transactions > 0), else an embedded PostgreSQL; --mariadb-url",
      "(or TANDEM_MARIADB_URL, else 127.0.0.1:3306); --kafka-bootstrap, else an embedded broker."
    })
final class CompareCommand implements Callable<Integer> {
  @Option(
      names = "--transfers",
      defaultValue = "2000",
      description = "Transfers per approach (default: ${DEFAULT-VALUE}).")
  int transfers;

  @Option(
      names = "--concurrency",
      defaultValue = "8",
      description = "Transfers in flight at once (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Option(
      names = "--jdbc-url",
      defaultValue = "${env:TANDEM_JDBC_URL}",
      description = "PostgreSQL server (the run creates and drops its own databases).")
  String jdbcUrl;

  @Option(
      names = "--mariadb-url",
      defaultValue = "${env:TANDEM_MARIADB_URL}",
      description = "MariaDB server (the run creates and drops its own databases).")
  String mariadbUrl;

  @Mixin KafkaOptions kafka = new KafkaOptions();

  @Override
  public Integer call() throws Exception {
    kafka.checked();
    CompareReport report =
        new CompareBenchmark(
                transfers,
                concurrency,
                blank(jdbcUrl),
                blank(mariadbUrl),
                kafka.bootstrapOrNull(),
                System.err)
            .kafkaClientProperties(kafka.clientProperties())
            .run();
    System.out.print(json ? report.toJson() + System.lineSeparator() : report.toTable());
    return 0;
  }

  private static String blank(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
