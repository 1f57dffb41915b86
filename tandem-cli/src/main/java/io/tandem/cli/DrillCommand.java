package io.tandem.cli;

import io.tandem.drill.DrillReport;
import io.tandem.drill.DrillRunner;
import io.tandem.drill.DrillSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tandem drill}: failure drills that kill real processes and check nothing is lost. */
@Command(
    name = "drill",
    header = "Runs failure drills and checks that nothing was lost or doubled.",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs failure drills. Each starts the service, relay(s), consumer(s) or",
      "orchestrator as separate JVM processes against real databases and a real",
      "Kafka broker (embedded unless given), applies one fault, lets the system",
      "recover, then reads the databases and the broker to check that every",
      "committed event reached the consumer, no side effect happened twice and",
      "per-aggregate order held (sagas: every saga ended, invariants held).",
      "Exit status 0 only when no drill failed; --list names the drills.",
      ""
    })
final class DrillCommand implements Callable<Integer> {

  @Parameters(
      arity = "0..*",
      paramLabel = "NAME",
      description = "Drills to run, or 'all' (default); --list shows them.")
  List<String> names = new ArrayList<>();

  @Option(
      names = "--events",
      description =
          "Changes committed in each outbox drill (sagas: a tenth, at least 20); default"
              + " ${DEFAULT-VALUE}. 100000 for a soak run.")
  int events = DrillSettings.DEFAULT_EVENTS;

  @Option(
      names = "--outage",
      description = "How long broker-outage keeps the broker down; default 30s.",
      converter = DurationConverter.class)
  Duration outage = DrillSettings.DEFAULT_OUTAGE;

  @Option(
      names = "--timeout",
      description =
          "How long a drill waits for the system to settle after its fault; default 120s.",
      converter = DurationConverter.class)
  Duration timeout = DrillSettings.DEFAULT_TIMEOUT;

  @Option(
      names = "--jdbc-url",
      description = "A PostgreSQL server to use (user with CREATEDB); default embedded.")
  String jdbcUrl;

  @Mixin KafkaOptions kafka = new KafkaOptions();

  @Option(
      names = "--kafka-cluster",
      paramLabel = "NODES",
      description =
          "Run the drills on an embedded Kafka cluster of NODES (3 to 5) nodes, each its own"
              + " process (replication 3, min.insync.replicas 2), instead of one broker.")
  int kafkaCluster;

  @Option(
      names = "--without-protection",
      description =
          "Switch each drill's protection off (inbox bypassed, publish after commit, no"
              + " ordering guard, ...) to see the checker catch it: every drill should FAIL.")
  boolean withoutProtection;

  @Option(
      names = "--relay",
      paramLabel = "polling|cdc",
      description =
          "The relay of the drills: polling (default) or cdc (the CDC relay on PostgreSQL's WAL;"
              + " relay-crash-after-ack and cdc-stopped, the others report NOT_AVAILABLE).")
  String relay = DrillSettings.POLLING_RELAY;

  @Option(
      names = "--logs",
      description = "Folder for the processes' logs; default a temporary one.")
  Path logs;

  @Option(names = "--list", description = "List the drills and exit.")
  boolean list;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    if (list) {
      for (Map.Entry<String, String> e : DrillRunner.catalog().entrySet()) {
        System.out.printf("%-28s %s%n", e.getKey(), e.getValue());
      }
      return 0;
    }
    List<String> selected = DrillRunner.resolve(names);
    Path dir = logs != null ? logs : Files.createTempDirectory("tandem-drill-");
    kafka.checked();
    DrillSettings settings =
        DrillSettings.builder(dir)
            .events(events)
            .outage(outage)
            .timeout(timeout)
            .protection(!withoutProtection)
            .jdbcUrl(jdbcUrl)
            .kafkaBootstrap(kafka.bootstrapOrNull())
            .relay(relay)
            .kafkaClient(kafka.clientProperties())
            .kafkaCluster(kafkaCluster)
            .build();
    DrillReport report = DrillRunner.run(selected, settings, System.err);
    if (json) {
      System.out.println(report.toJson());
    } else {
      report.printTable(System.out);
    }
    return report.ok() ? 0 : 1;
  }
}
