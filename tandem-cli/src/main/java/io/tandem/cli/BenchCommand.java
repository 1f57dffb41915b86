package io.tandem.cli;

import io.tandem.bench.CdcRelayBenchmark;
import io.tandem.bench.ConsumerBenchReport;
import io.tandem.bench.ConsumerBenchmark;
import io.tandem.bench.ConsumerScaleOutBenchmark;
import io.tandem.bench.ConsumerScaleOutReport;
import io.tandem.bench.PipelineBenchReport;
import io.tandem.bench.PipelineBenchmark;
import io.tandem.bench.RelayBenchReport;
import io.tandem.bench.RelayBenchmark;
import io.tandem.bench.RelayScaleOutBenchmark;
import io.tandem.bench.SagaBenchReport;
import io.tandem.bench.SagaBenchmark;
import io.tandem.bench.XaBenchReport;
import io.tandem.bench.XaBenchmark;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tandem bench}: benchmarks whose ratios are measured side by side in one run. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Benchmarks (see BENCHMARKS.md).",
    subcommands = {
      BenchCommand.Relay.class,
      BenchCommand.Consumer.class,
      BenchCommand.Pipeline.class,
      BenchCommand.Saga.class,
      BenchCommand.Xa.class
    })
final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  @Command(
      name = "relay",
      mixinStandardHelpOptions = true,
      description = {
        "Relay throughput to Kafka against the raw-SQL ceiling of the same run, commit-to-ack",
        "latency, writer throughput with and without the relay, relay heap with a 1M-row",
        "backlog, claim-query cost with 10k and 1M published rows.",
        "Uses --jdbc-url (or TANDEM_JDBC_URL) when given, else an embedded PostgreSQL with fsync"
            + " on."
      })
  static final class Relay implements Callable<Integer> {
    @Option(
        names = "--events",
        defaultValue = "100000",
        description = "Events per throughput run (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(names = "--quick", description = "Shorter windows; skip the 1M-row parts.")
    boolean quick;

    @Option(
        names = "--instances",
        split = ",",
        paramLabel = "N,N,...",
        description =
            "Scale-out instead: for each count, that many relay processes on one database drain"
                + " the same --events backlog; throughput, partitions and rows per relay, p50/p99"
                + " at 500 events/s, CPU per process. For example 1,2,4.")
    List<Integer> instances;

    @Option(
        names = "--mode",
        paramLabel = "polling|cdc",
        description =
            "cdc: the CDC relay (Debezium on the WAL) against the polling relay on the same"
                + " --events and the same steady load, in one run; needs wal_level=logical on a"
                + " given server (the embedded one has it).")
    String mode = "polling";

    @Mixin BenchOptions.Output output = new BenchOptions.Output();

    @Mixin BenchOptions.Postgres postgres = new BenchOptions.Postgres();

    @Mixin KafkaOptions kafka = new KafkaOptions();

    @Override
    public Integer call() throws Exception {
      kafka.checked();
      if (!mode.equals("polling") && !mode.equals("cdc")) {
        throw new CommandLine.ParameterException(
            new CommandLine(this), "--mode must be polling or cdc, was '" + mode + "'");
      }
      if (mode.equals("cdc")) {
        if (instances != null) {
          throw new CommandLine.ParameterException(
              new CommandLine(this),
              "--instances measures the polling relay: leave out --mode cdc");
        }
        CdcRelayBenchmark.Report cdc =
            new CdcRelayBenchmark(
                    events, quick, postgres.urlOrNull(), kafka.bootstrapOrNull(), System.err)
                .kafkaClientProperties(kafka.clientProperties())
                .run();
        System.out.print(output.render(cdc.toJson(), cdc.toTable()));
        return 0;
      }
      if (instances != null) {
        RelayScaleOutBenchmark.ScaleOutReport scale =
            new RelayScaleOutBenchmark(
                    instances,
                    events,
                    quick,
                    postgres.urlOrNull(),
                    kafka.bootstrapOrNull(),
                    System.err)
                .kafkaClientProperties(kafka.clientProperties())
                .run();
        System.out.print(output.render(scale.toJson(), scale.toTable()));
        return 0;
      }
      RelayBenchReport report =
          new RelayBenchmark(
                  events, quick, postgres.urlOrNull(), kafka.bootstrapOrNull(), System.err)
              .kafkaClientProperties(kafka.clientProperties())
              .run();
      System.out.print(output.render(report.toJson(), report.toTable()));
      return 0;
    }
  }

  @Command(
      name = "consumer",
      mixinStandardHelpOptions = true,
      description = {
        "Consumer throughput on Kafka: the batched inbox versus a bare handler writing the same",
        "rows (one commit per event, and one per batch), the inbox with 8 lanes versus one, and",
        "p50/p99 from the producer to the consumer's commit at 1,000 events/s offered.",
        "Uses --jdbc-url (or TANDEM_JDBC_URL) when given, else an embedded PostgreSQL with fsync"
            + " on."
      })
  static final class Consumer implements Callable<Integer> {
    @Option(
        names = "--events",
        defaultValue = "20000",
        description = "Events per run (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(
        names = "--instances",
        split = ",",
        paramLabel = "N,N,...",
        description =
            "Scale-out instead: for each count, a consumer group of that many consumer processes"
                + " (batched inbox, 4 lanes each) drains the same --events; throughput, partitions"
                + " and effects per consumer, p50/p99 at 1,000 events/s, CPU per process. For"
                + " example 1,2,4.")
    List<Integer> instances;

    @Mixin BenchOptions.Output output = new BenchOptions.Output();

    @Mixin BenchOptions.Postgres postgres = new BenchOptions.Postgres();

    @Mixin KafkaOptions kafka = new KafkaOptions();

    @Override
    public Integer call() throws Exception {
      kafka.checked();
      if (instances != null) {
        ConsumerScaleOutReport scale =
            new ConsumerScaleOutBenchmark(
                    instances, events, postgres.urlOrNull(), kafka.bootstrapOrNull(), System.err)
                .kafkaClientProperties(kafka.clientProperties())
                .run();
        System.out.print(output.render(scale.toJson(), scale.toTable()));
        return 0;
      }
      ConsumerBenchReport report =
          new ConsumerBenchmark(events, postgres.urlOrNull(), kafka.bootstrapOrNull(), System.err)
              .kafkaClientProperties(kafka.clientProperties())
              .run();
      System.out.print(output.render(report.toJson(), report.toTable()));
      return 0;
    }
  }

  @Command(
      name = "pipeline",
      mixinStandardHelpOptions = true,
      description = {
        "The whole pipeline: 4 writers commit an order and its event, the relay publishes to",
        "Kafka, a consumer applies each event through the inbox into a second database. Effects/s",
        "against the writers alone, backlog growth and commit-to-effect latency, as fast as the",
        "writers can and at 1,000 events/s offered.",
        "Uses --jdbc-url (or TANDEM_JDBC_URL) when given, else an embedded PostgreSQL with fsync"
            + " on."
      })
  static final class Pipeline implements Callable<Integer> {
    @Option(
        names = "--window",
        defaultValue = "20s",
        converter = DurationConverter.class,
        description = "Measured window of each phase, 5s to 10m (default: ${DEFAULT-VALUE}).")
    Duration window;

    @Mixin BenchOptions.Output output = new BenchOptions.Output();

    @Mixin BenchOptions.Postgres postgres = new BenchOptions.Postgres();

    @Mixin KafkaOptions kafka = new KafkaOptions();

    @Override
    public Integer call() throws Exception {
      kafka.checked();
      PipelineBenchReport report =
          new PipelineBenchmark(window, postgres.urlOrNull(), kafka.bootstrapOrNull(), System.err)
              .kafkaClientProperties(kafka.clientProperties())
              .run();
      System.out.print(output.render(report.toJson(), report.toTable()));
      return 0;
    }
  }

  @Command(
      name = "saga",
      mixinStandardHelpOptions = true,
      description = {
        "Completed checkouts/s of the 4-step checkout saga on Kafka (orchestrator",
        "and four participants, each with its own database on the same server)",
        "against the bound the database's commit rate sets: small-transaction",
        "commits/s measured in the same run divided by the checkout's 9 business",
        "commits (ratio), and against the floor (floor_ratio). Uses --jdbc-url (or TANDEM_JDBC_URL) when given, else an embedded",
        "PostgreSQL with fsync on. Then the floor: the same messages and commits per",
        "checkout without Tandem (no outbox, inbox or saga state), against the same bound."
      })
  static final class Saga implements Callable<Integer> {
    @Option(
        names = "--sagas",
        defaultValue = "2000",
        description = "Sagas in the measured run (default: ${DEFAULT-VALUE}).")
    int sagas;

    @Option(
        names = "--in-flight",
        defaultValue = "50",
        description = "Most sagas running at once (default: ${DEFAULT-VALUE}).")
    int inFlight;

    @Option(
        names = "--lanes",
        defaultValue = "4",
        description = "Worker lanes of each consumer (default: ${DEFAULT-VALUE}).")
    int lanes;

    @Option(
        names = "--orchestrators",
        split = ",",
        defaultValue = "1",
        description = {
          "Orchestrator instances, one run per count, e.g. 1,2: threads of the benchmark's JVM,",
          "each with its reply consumer (one group) and timer, on the same saga tables",
          "(default: ${DEFAULT-VALUE})."
        })
    List<Integer> orchestrators;

    @Mixin BenchOptions.Output output = new BenchOptions.Output();

    @Mixin BenchOptions.Postgres postgres = new BenchOptions.Postgres();

    @Mixin KafkaOptions kafka = new KafkaOptions();

    @Override
    public Integer call() throws Exception {
      kafka.checked();
      for (int count : orchestrators) {
        SagaBenchReport report =
            new SagaBenchmark(
                    sagas,
                    inFlight,
                    lanes,
                    postgres.urlOrNull(),
                    kafka.bootstrapOrNull(),
                    System.err)
                .kafkaClientProperties(kafka.clientProperties())
                .orchestrators(count)
                .run();
        System.out.print(output.render(report.toJson(), report.toTable()));
      }
      return 0;
    }
  }

  @Command(
      name = "xa",
      mixinStandardHelpOptions = true,
      description = {
        "Two-phase transfers (debit on PostgreSQL, credit on MariaDB, one XA branch each)",
        "against the bound of the same transfers as two local commits, same databases, same",
        "threads, one run: transfers/s, ratio, p50/p99. Uses --jdbc-url (or TANDEM_JDBC_URL;",
        "it needs max_prepared_transactions > 0), else an embedded PostgreSQL with fsync on,",
        "and --mariadb-url (or TANDEM_MARIADB_URL, else 127.0.0.1:3306)."
      })
  static final class Xa implements Callable<Integer> {
    @Option(
        names = "--transfers",
        defaultValue = "10000",
        description = "Transfers in each measured run (default: ${DEFAULT-VALUE}).")
    int transfers;

    @Option(
        names = "--concurrency",
        defaultValue = "8",
        description = "Threads running transfers at once (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Mixin BenchOptions.Output output = new BenchOptions.Output();

    @Mixin BenchOptions.Postgres postgres = new BenchOptions.Postgres();

    @Option(
        names = "--mariadb-url",
        defaultValue = "${env:TANDEM_MARIADB_URL}",
        description = "MariaDB server (the benchmark creates and drops its own databases).")
    String mariadbUrl;

    @Override
    public Integer call() throws Exception {
      XaBenchReport report =
          new XaBenchmark(
                  transfers,
                  concurrency,
                  postgres.urlOrNull(),
                  mariadbUrl == null || mariadbUrl.isBlank() ? null : mariadbUrl,
                  System.err)
              .run();
      System.out.print(output.render(report.toJson(), report.toTable()));
      return report.moneyConserved() ? 0 : 1;
    }
  }
}
