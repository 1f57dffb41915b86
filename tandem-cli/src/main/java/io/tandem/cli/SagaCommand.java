package io.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.saga.SagaInstance;
import io.tandem.saga.SagaQueries;
import io.tandem.saga.SagaRetention;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.SagaStepRecord;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tandem saga}: the operator's view of an orchestrator's database ({@link SagaQueries}):
 * list sagas, show one with its step log, put a STUCK one back to compensating.
 */
@Command(
    name = "saga",
    mixinStandardHelpOptions = true,
    header = "Lists sagas, shows one with its step log, retries a STUCK one, purges old ones.",
    description = {
      "Reads the orchestrator's database (--jdbc-url): saga instances and their step logs.",
      "No saga definitions are needed; it is safe while orchestrators run."
    },
    subcommands = {
      SagaCommand.ListSagas.class,
      SagaCommand.Show.class,
      SagaCommand.RetryStuck.class,
      SagaCommand.Purge.class
    })
final class SagaCommand extends CommandGroup {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code tandem saga list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      header = "Lists saga instances, oldest first.",
      description = "Saga instances by type and status, oldest first, without their step logs.")
  static final class ListSagas implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(names = "--type", description = "Only sagas of this type.")
    String type;

    @Option(
        names = "--status",
        description =
            "Only sagas in this status: RUNNING, COMPENSATING, COMPLETED, COMPENSATED or STUCK.")
    SagaStatus status;

    @Option(
        names = "--older-than",
        converter = DurationConverter.class,
        description = "Only sagas started at least this long ago, e.g. 10m or PT1H.")
    Duration olderThan;

    @Option(
        names = "--limit",
        defaultValue = "50",
        description = "At most this many (1 to 10000, default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "One JSON object per line instead of the table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      CliText.checkLimit(limit);
      if (olderThan != null && olderThan.isNegative()) {
        throw new IllegalArgumentException("--older-than must not be negative, was " + olderThan);
      }
      Instant now = Instant.now();
      Instant startedBefore = olderThan == null ? now.plusSeconds(1) : now.minus(olderThan);
      List<SagaInstance> sagas =
          withSagas(database, ds -> SagaQueries.of(ds).list(type, status, startedBefore, limit));
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        for (SagaInstance s : sagas) {
          out.println(JSON.writeValueAsString(summary(s)));
        }
      } else {
        out.printf(
            Locale.ROOT,
            "%-36s  %-16s %-12s %-20s %7s  %-24s %s%n",
            "id",
            "type",
            "status",
            "step",
            "attempt",
            "started",
            "last error");
        for (SagaInstance s : sagas) {
          out.printf(
              Locale.ROOT,
              "%-36s  %-16s %-12s %-20s %7d  %-24s %s%n",
              s.id(),
              s.type(),
              s.status(),
              s.currentStep(),
              s.attempt(),
              s.startedAt(),
              s.lastError().map(e -> CliText.shorten(e, 60)).orElse(""));
        }
        out.println(CliText.count(sagas.size(), "saga") + CliText.limitNote(sagas.size(), limit));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tandem saga show ID}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      header = "Shows one saga with its full step log.",
      description = "One saga instance: status, data, last error, and every command and reply.")
  static final class Show implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Parameters(paramLabel = "ID", description = "The saga's id.")
    UUID id;

    @Option(names = "--json", description = "One JSON object instead of the text.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      SagaInstance s =
          withSagas(database, ds -> SagaQueries.of(ds).find(id))
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no saga " + id + " in this database (is it the orchestrator's?)"));
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> m = summary(s);
        m.put("data", s.data());
        m.put("version", s.version());
        m.put("updated_at", s.updatedAt().toString());
        List<Map<String, Object>> steps = new ArrayList<>();
        for (SagaStepRecord r : s.steps()) {
          steps.add(step(r));
        }
        m.put("steps", steps);
        out.println(JSON.writeValueAsString(m));
      } else {
        out.printf(Locale.ROOT, "saga %s (%s): %s%n", s.id(), s.type(), s.status());
        out.printf(Locale.ROOT, "  step      %s, attempt %d%n", s.currentStep(), s.attempt());
        out.printf(
            Locale.ROOT,
            "  started   %s%s%n",
            s.startedAt(),
            s.endedAt().map(e -> ", ended " + e).orElse(""));
        s.lastError().ifPresent(e -> out.printf(Locale.ROOT, "  error     %s%n", e));
        out.printf(Locale.ROOT, "  data      %s%n", CliText.shorten(s.data(), 200));
        out.printf(
            Locale.ROOT,
            "  %4s  %-20s %-4s %7s  %-22s %-10s %-24s %9s  %s%n",
            "seq",
            "step",
            "kind",
            "attempt",
            "command",
            "outcome",
            "started",
            "took",
            "reply");
        for (SagaStepRecord r : s.steps()) {
          out.printf(
              Locale.ROOT,
              "  %4d  %-20s %-4s %7d  %-22s %-10s %-24s %9s  %s%n",
              r.seq(),
              r.step(),
              r.compensation() ? "C" : "F",
              r.attempt(),
              r.command(),
              r.outcome(),
              r.startedAt(),
              r.endedAt()
                  .map(e -> Duration.between(r.startedAt(), e).toMillis() + " ms")
                  .orElse("-"),
              r.reply().map(x -> CliText.shorten(x, 60)).orElse(""));
        }
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tandem saga retry-stuck ID}. */
  @Command(
      name = "retry-stuck",
      mixinStandardHelpOptions = true,
      header = "Puts a STUCK saga back to compensating.",
      description = {
        "Puts a STUCK saga back to COMPENSATING with a fresh attempt budget: the timer of a",
        "running orchestrator sends its failed compensation again at once."
      })
  static final class RetryStuck implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Parameters(paramLabel = "ID", description = "The STUCK saga's id.")
    UUID id;

    @Override
    public Integer call() throws Exception {
      try {
        withSagas(
            database,
            ds -> {
              SagaQueries.of(ds).retryStuck(id);
              return null;
            });
      } catch (IllegalStateException notStuck) {
        throw new IllegalArgumentException(notStuck.getMessage(), notStuck);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "saga "
              + id
              + " is COMPENSATING again; a running orchestrator's timer sends its compensation"
              + " now");
      out.flush();
      return 0;
    }
  }

  /** {@code tandem saga purge}. */
  @Command(
      name = "purge",
      mixinStandardHelpOptions = true,
      header = "Deletes finished sagas older than a retention (or counts them: --dry-run).",
      description = {
        "Deletes COMPLETED and COMPENSATED sagas that ended longer ago than --older-than, with",
        "their step logs, in batches of 500 (at most 100 per run). Running, compensating and",
        "STUCK sagas are never deleted."
      })
  static final class Purge implements Callable<Integer> {
    private static final Map<String, String> RETENTION_OPTIONS =
        Map.of("retention", "--older-than");

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(
        names = "--older-than",
        defaultValue = "30d",
        converter = DurationConverter.class,
        description = "Keep sagas that ended more recently (default ${DEFAULT-VALUE}).")
    Duration olderThan;

    @Option(names = "--dry-run", description = "Count what would be deleted; delete nothing.")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
      SagaRetention.Builder settings = SagaRetention.builder().retention(olderThan);
      CliText.checkSettings(settings::checkSettings, RETENTION_OPTIONS);
      long n =
          withSagas(
              database,
              ds -> {
                SagaRetention retention = settings.dataSource(ds).build();
                return dryRun ? retention.dryRun() : retention.run();
              });
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          Locale.ROOT,
          "%s %s that ended more than %s ago%n",
          dryRun ? "would delete" : "deleted",
          CliText.count(n, "finished saga"),
          olderThan);
      out.flush();
      return 0;
    }
  }

  private static <T> T withSagas(DatabaseOptions database, DatabaseOptions.Work<T> work)
      throws Exception {
    return database.withDatabase("tandem-saga", "tandem_saga", work);
  }

  private static Map<String, Object> summary(SagaInstance s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id().toString());
    m.put("type", s.type());
    m.put("status", s.status().name());
    m.put("step", s.currentStep());
    m.put("attempt", s.attempt());
    m.put("started_at", s.startedAt().toString());
    m.put("ended_at", s.endedAt().map(Instant::toString).orElse(null));
    m.put("last_error", s.lastError().orElse(null));
    return m;
  }

  private static Map<String, Object> step(SagaStepRecord r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seq", r.seq());
    m.put("step", r.step());
    m.put("kind", r.compensation() ? "COMPENSATION" : "FORWARD");
    m.put("attempt", r.attempt());
    m.put("command_id", r.commandId().toString());
    m.put("command", r.command());
    m.put("outcome", r.outcome());
    m.put("reply_type", r.replyType().orElse(null));
    m.put("reply", r.reply().orElse(null));
    m.put("started_at", r.startedAt().toString());
    m.put("ended_at", r.endedAt().map(Instant::toString).orElse(null));
    return m;
  }
}
