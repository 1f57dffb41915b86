package io.tandem.cli;

import io.tandem.drill.DrillReport;
import io.tandem.drill.DrillSettings;
import io.tandem.drill.Soak;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem soak}: both flows under load while processes are killed and the broker restarts.
 */
@Command(
    name = "soak",
    header =
        "Runs the outbox flow and the checkout for a while under random kills and broker restarts.",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "The outbox flow (a service, two relays, two consumers, each a process) and the",
      "checkout (two orchestrator processes) run under steady load; every --kill-every",
      "a relay, consumer or orchestrator picked at random is killed with SIGKILL and",
      "replaced, every --broker-restart-every the embedded Kafka broker is stopped for",
      "5 s and started again. At the end the checker reads the databases and the broker:",
      "every change applied once and in order, every saga ended, invariants held.",
      "Exit status 0 only when both pass.",
      ""
    })
final class SoakCommand implements Callable<Integer> {

  @Option(
      names = "--duration",
      description = "How long the faults go on; default 30m.",
      converter = DurationConverter.class)
  Duration duration = Duration.ofMinutes(30);

  @Option(
      names = "--kill-every",
      description = "Time between two kills; default 30s.",
      converter = DurationConverter.class)
  Duration killEvery = Duration.ofSeconds(30);

  @Option(
      names = "--broker-restart-every",
      description = "Time between two broker restarts; default 5m.",
      converter = DurationConverter.class)
  Duration brokerRestartEvery = Duration.ofMinutes(5);

  @Option(names = "--changes-per-s", description = "Outbox changes offered per second; default 20.")
  int changesPerSecond = 20;

  @Option(names = "--checkouts-per-s", description = "Checkouts offered per second; default 2.")
  int checkoutsPerSecond = 2;

  @Option(names = "--seed", description = "Seed of the random choices; default 1.")
  long seed = 1;

  @Option(
      names = "--jdbc-url",
      description = "A PostgreSQL server to use (user with CREATEDB); default embedded.")
  String jdbcUrl;

  @Option(
      names = "--timeout",
      description = "How long the system may take to settle after the faults; default 10m.",
      converter = DurationConverter.class)
  Duration timeout = Duration.ofMinutes(10);

  @Option(
      names = "--logs",
      description = "Folder for the processes' logs; default a temporary one.")
  Path logs;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Path dir = logs != null ? logs : Files.createTempDirectory("tandem-soak-");
    DrillSettings drill = DrillSettings.builder(dir).timeout(timeout).jdbcUrl(jdbcUrl).build();
    DrillReport report =
        Soak.run(
            new Soak.Settings(
                duration,
                killEvery,
                brokerRestartEvery,
                changesPerSecond,
                checkoutsPerSecond,
                seed,
                drill),
            System.err);
    if (json) {
      System.out.println(report.toJson());
    } else {
      report.printTable(System.out);
    }
    return report.ok() ? 0 : 1;
  }
}
