package io.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.inbox.AggregateGap;
import io.tandem.inbox.DeadLetter;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxAdvance;
import io.tandem.inbox.InboxOperations;
import io.tandem.inbox.InboxRetention;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tandem inbox}: the operator's view of a consumer's tables ({@link InboxOperations}): dead
 * letters, gaps, the recorded advance past versions that will never arrive; and the inbox retention
 * ({@link InboxRetention}). Replaying or discarding a dead letter needs the consumer's handlers: it
 * is done from the application ({@code InboxProcessor.replay} / {@code discard}).
 */
@Command(
    name = "inbox",
    mixinStandardHelpOptions = true,
    header =
        "Dead letters and waiting aggregates of a consumer, moving it past versions that will"
            + " never arrive; inbox retention.",
    description = "Works on the consumer's database given with --jdbc-url (or TANDEM_JDBC_URL).",
    subcommands = {
      InboxCommand.DeadLetters.class,
      InboxCommand.Gaps.class,
      InboxCommand.Advance.class,
      InboxCommand.Advances.class,
      InboxCommand.Retention.class
    })
final class InboxCommand extends CommandGroup {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static <T> T withInbox(DatabaseOptions database, DatabaseOptions.Work<T> work)
      throws Exception {
    return database.withDatabase("tandem-inbox", "tandem_dead_letter", work);
  }

  /** {@code tandem inbox dead-letters}. */
  @Command(
      name = "dead-letters",
      mixinStandardHelpOptions = true,
      header = "Lists a consumer's dead letters, oldest first, with why they failed.",
      description = {
        "Messages the consumer could not apply: why, after how many attempts, and the event's",
        "identity when it could be decoded. Replay or discard them from the application",
        "(InboxProcessor.replay / discard): both need the consumer's handlers."
      })
  static final class DeadLetters implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(names = "--consumer", required = true, description = "The consumer's name.")
    String consumer;

    @Option(
        names = "--status",
        defaultValue = "DEAD",
        description = "DEAD (default, still open), REPLAYED or DISCARDED.")
    DeadLetterStatus status;

    @Mixin ListingOptions listing;

    @Override
    public Integer call() throws Exception {
      int limit = listing.checkedLimit();
      boolean json = listing.json();
      List<DeadLetter> letters =
          withInbox(
              database, ds -> InboxOperations.create(ds).deadLetters(consumer, status, 0, limit));
      PrintWriter out = spec.commandLine().getOut();
      for (DeadLetter d : letters) {
        if (json) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("id", d.id());
          m.put("consumer", d.consumer());
          m.put("status", d.status().name());
          m.put("reason_class", d.reasonClass().name());
          m.put("reason", d.reason());
          m.put("attempts", d.attempts());
          m.put("origin", d.origin());
          m.put("event_id", d.eventId() == null ? null : d.eventId().toString());
          m.put("aggregate_type", d.aggregateType());
          m.put("aggregate_id", d.aggregateId());
          m.put("aggregate_version", d.aggregateVersion());
          m.put("event_type", d.eventType());
          m.put("dead_at", d.deadAt().toString());
          m.put("resolved_at", d.resolvedAt() == null ? null : d.resolvedAt().toString());
          m.put("raw_headers", d.rawHeaders());
          m.put("raw_body", new String(d.rawBody(), StandardCharsets.UTF_8));
          out.println(JSON.writeValueAsString(m));
        } else {
          out.printf(
              Locale.ROOT,
              "#%d  %s  %s, %d attempts, %s: %s%n",
              d.id(),
              d.eventId() == null
                  ? "(not a Tandem event) from " + d.origin()
                  : d.aggregateType()
                      + "/"
                      + d.aggregateId()
                      + " v"
                      + d.aggregateVersion()
                      + " "
                      + d.eventType(),
              d.status(),
              d.attempts(),
              d.reasonClass(),
              CliText.shorten(d.reason(), 100));
        }
      }
      if (!json) {
        out.println(
            CliText.count(letters.size(), "dead letter")
                + " "
                + status
                + CliText.limitNote(letters.size(), limit));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tandem inbox gaps}. */
  @Command(
      name = "gaps",
      mixinStandardHelpOptions = true,
      header = "Lists aggregates whose events wait for a missing version.",
      description = {
        "With the ordering guard on, an event whose predecessor was not applied is parked.",
        "Lists the aggregates waiting longer than --older-than, oldest first, with the reason."
      })
  static final class Gaps implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(names = "--consumer", required = true, description = "The consumer's name.")
    String consumer;

    @Option(
        names = "--older-than",
        defaultValue = "0s",
        converter = DurationConverter.class,
        description = "Only gaps older than this (default ${DEFAULT-VALUE}).")
    Duration olderThan;

    @Mixin ListingOptions listing;

    @Override
    public Integer call() throws Exception {
      int limit = listing.checkedLimit();
      boolean json = listing.json();
      List<AggregateGap> gaps =
          withInbox(database, ds -> InboxOperations.create(ds).gaps(consumer, olderThan, limit));
      PrintWriter out = spec.commandLine().getOut();
      for (AggregateGap g : gaps) {
        if (json) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("aggregate_type", g.aggregateType());
          m.put("aggregate_id", g.aggregateId());
          m.put("last_applied", g.lastApplied().isPresent() ? g.lastApplied().getAsLong() : null);
          m.put("waiting_for", g.waitingFor());
          m.put("first_parked", g.firstParked());
          m.put("parked", g.parked());
          m.put("waiting_ms", g.waiting().toMillis());
          m.put(
              "blocking_dead_letter",
              g.blockingDeadLetter().isPresent() ? g.blockingDeadLetter().getAsLong() : null);
          m.put("explanation", g.explanation());
          out.println(JSON.writeValueAsString(m));
        } else {
          out.printf(
              Locale.ROOT,
              "%s/%s waits for v%d (%d parked, %s): %s%n",
              g.aggregateType(),
              g.aggregateId(),
              g.waitingFor(),
              g.parked(),
              CliText.age(g.waiting()),
              g.explanation());
        }
      }
      if (!json) {
        out.println(
            CliText.count(gaps.size(), "waiting aggregate")
                + CliText.limitNote(gaps.size(), limit));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tandem inbox advance}. */
  @Command(
      name = "advance",
      mixinStandardHelpOptions = true,
      header = "Moves an ordered consumer past versions of an aggregate that will never arrive.",
      description = {
        "For a version skipped at the producer (tandem outbox skip) or otherwise lost: the",
        "consumer's position for the aggregate moves to --to-version without applying the",
        "versions in between, and who, when and why are recorded in tandem_inbox_advance",
        "(kept for good; list them with tandem inbox advances). A running consumer applies the",
        "parked later versions at its next sweep (every 5 s by default). Refused when a version",
        "up to --to-version is parked (it arrived: it is applied, not advanced over) or held by",
        "an open dead letter (replay or discard that from the application)."
      })
  static final class Advance implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(names = "--consumer", required = true, description = "The consumer's name.")
    String consumer;

    @Option(names = "--aggregate-type", required = true, description = "e.g. Order.")
    String aggregateType;

    @Option(names = "--aggregate-id", required = true, description = "e.g. o-17.")
    String aggregateId;

    @Option(
        names = "--to-version",
        required = true,
        description = "The version to treat as applied (the last missing one).")
    long toVersion;

    @Option(
        names = "--reason",
        required = true,
        description = "Why, recorded (e.g. 'v2 skipped at the producer, ticket OPS-123').")
    String reason;

    @Option(
        names = "--operator",
        defaultValue = "${env:USER}",
        description = "Who advances, recorded (default: $USER, else the system's user name).")
    String operator;

    @Override
    public Integer call() throws Exception {
      String who =
          operator != null && !operator.isBlank() ? operator : System.getProperty("user.name");
      InboxAdvance a =
          withInbox(
              database,
              ds ->
                  InboxOperations.create(ds)
                      .advance(consumer, aggregateType, aggregateId, toVersion, reason, who));
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          Locale.ROOT,
          "consumer %s advanced %s/%s from v%d to v%d (advance #%d by %s): %s%n",
          a.consumer(),
          a.aggregateType(),
          a.aggregateId(),
          a.fromVersion(),
          a.toVersion(),
          a.id(),
          a.advancedBy(),
          a.reason());
      out.println("a running consumer applies the parked later versions at its next sweep");
      out.flush();
      return 0;
    }
  }

  /** {@code tandem inbox advances}. */
  @Command(
      name = "advances",
      mixinStandardHelpOptions = true,
      header = "Lists the recorded advances of a consumer past versions, oldest first.")
  static final class Advances implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(names = "--consumer", required = true, description = "The consumer's name.")
    String consumer;

    @Mixin ListingOptions listing;

    @Override
    public Integer call() throws Exception {
      int limit = listing.checkedLimit();
      boolean json = listing.json();
      List<InboxAdvance> advances =
          withInbox(database, ds -> InboxOperations.create(ds).advances(consumer, 0, limit));
      PrintWriter out = spec.commandLine().getOut();
      for (InboxAdvance a : advances) {
        if (json) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("id", a.id());
          m.put("consumer", a.consumer());
          m.put("aggregate_type", a.aggregateType());
          m.put("aggregate_id", a.aggregateId());
          m.put("from_version", a.fromVersion());
          m.put("to_version", a.toVersion());
          m.put("reason", a.reason());
          m.put("advanced_by", a.advancedBy());
          m.put("advanced_at", a.advancedAt().toString());
          out.println(JSON.writeValueAsString(m));
        } else {
          out.printf(
              Locale.ROOT,
              "#%d  %s/%s v%d -> v%d  %s by %s: %s%n",
              a.id(),
              a.aggregateType(),
              a.aggregateId(),
              a.fromVersion(),
              a.toVersion(),
              a.advancedAt(),
              a.advancedBy(),
              CliText.shorten(a.reason(), 100));
        }
      }
      if (!json) {
        out.println(
            CliText.count(advances.size(), "advance") + CliText.limitNote(advances.size(), limit));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tandem inbox retention}. */
  @Command(
      name = "retention",
      mixinStandardHelpOptions = true,
      header = "Purges inbox records older than a retention (or counts them: --dry-run).",
      description = {
        "Inbox records turn a redelivered event into a no-op: the retention may not be shorter",
        "than the longest time after which the broker may deliver an event again",
        "(--max-replay-window). Ordering positions are never touched."
      })
  static final class Retention implements Callable<Integer> {
    private static final Map<String, String> RETENTION_OPTIONS =
        Map.of("retention", "--older-than", "maxReplayWindow", "--max-replay-window");

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(
        names = "--older-than",
        defaultValue = "14d",
        converter = DurationConverter.class,
        description = "Keep records processed more recently (default ${DEFAULT-VALUE}).")
    Duration olderThan;

    @Option(
        names = "--max-replay-window",
        defaultValue = "7d",
        converter = DurationConverter.class,
        description =
            "How long the broker may still deliver an event again (default ${DEFAULT-VALUE});"
                + " --older-than may not be shorter.")
    Duration maxReplayWindow;

    @Option(names = "--dry-run", description = "Count what would be purged; purge nothing.")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
      InboxRetention.Builder settings =
          InboxRetention.builder().retention(olderThan).maxReplayWindow(maxReplayWindow);
      CliText.checkSettings(settings::checkSettings, RETENTION_OPTIONS);
      long n =
          database.withDatabase(
              "tandem-inbox",
              "tandem_inbox",
              ds -> {
                InboxRetention r = settings.dataSource(ds).build();
                return dryRun ? r.dryRun() : r.run();
              });
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          Locale.ROOT,
          "%s %s processed more than %s ago%n",
          dryRun ? "would purge" : "purged",
          CliText.count(n, "inbox record"),
          olderThan);
      out.flush();
      return 0;
    }
  }
}
