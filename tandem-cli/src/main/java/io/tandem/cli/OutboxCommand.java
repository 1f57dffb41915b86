package io.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.core.Progress;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRetention;
import io.tandem.outbox.OutboxStatus;
import io.tandem.outbox.QuarantinedEvent;
import java.io.PrintWriter;
import java.time.Duration;
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
 * {@code tandem outbox}: the operator's side of a service's outbox ({@link OutboxOperations},
 * {@link OutboxRetention}) from the command line.
 */
@Command(
    name = "outbox",
    mixinStandardHelpOptions = true,
    header = "Backlog and relays, quarantined events, replay, skip and retention of an outbox.",
    description = "Works on the service database given with --jdbc-url (or TANDEM_JDBC_URL).",
    subcommands = {
      OutboxCommand.Status.class,
      OutboxCommand.Quarantined.class,
      OutboxCommand.Replay.class,
      OutboxCommand.Skip.class,
      OutboxCommand.Retention.class
    })
final class OutboxCommand extends CommandGroup {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static <T> T withOutbox(DatabaseOptions database, DatabaseOptions.Work<T> work)
      throws Exception {
    return database.withDatabase("tandem-outbox", "tandem_outbox", work);
  }

  /** {@code tandem outbox status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      header = "Backlog, oldest pending age, quarantine, partitions and relays.",
      description = {
        "Backlog (pending events and the oldest one's age), quarantined and skipped events,",
        "every relay partition with its owner and lease, and the relays that heartbeat.",
        "Exit status 3 when a partition with pending events has no owner (stranded)."
      })
  static final class Status implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(names = "--json", description = "One JSON object instead of the text.")
    boolean json;

    @Option(
        names = "--partitions",
        description = "List every partition (by default only the stranded ones).")
    boolean partitions;

    @Override
    public Integer call() throws Exception {
      OutboxStatus s = withOutbox(database, ds -> OutboxOperations.create(ds).status());
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pending", s.pending());
        m.put("oldest_pending_age_ms", s.oldestPendingAge().toMillis());
        m.put("quarantined", s.quarantined());
        m.put("skipped", s.skipped());
        m.put("published", s.published());
        List<Map<String, Object>> partitions = new ArrayList<>();
        for (OutboxStatus.Partition p : s.partitions()) {
          Map<String, Object> pm = new LinkedHashMap<>();
          pm.put("partition", p.partition());
          pm.put("owner", p.owner());
          pm.put("owned", p.owned());
          pm.put(
              "lease_remaining_ms",
              p.leaseRemaining() == null ? null : p.leaseRemaining().toMillis());
          pm.put("pending", p.pending());
          partitions.add(pm);
        }
        m.put("partitions", partitions);
        List<Map<String, Object>> relays = new ArrayList<>();
        for (OutboxStatus.Instance i : s.instances()) {
          Map<String, Object> im = new LinkedHashMap<>();
          im.put("relay_id", i.relayId());
          im.put("host", i.host());
          im.put("started_at", i.startedAt().toString());
          im.put("heartbeat_age_ms", i.heartbeatAge().toMillis());
          relays.add(im);
        }
        m.put("relays", relays);
        m.put("stranded_partitions", s.stranded().size());
        out.println(JSON.writeValueAsString(m));
      } else {
        out.printf(
            Locale.ROOT,
            "pending %d (oldest %s), quarantined %d, skipped %d, published %d%n",
            s.pending(),
            CliText.age(s.oldestPendingAge()),
            s.quarantined(),
            s.skipped(),
            s.published());
        out.printf(Locale.ROOT, "relays: %d%n", s.instances().size());
        for (OutboxStatus.Instance i : s.instances()) {
          out.printf(
              Locale.ROOT,
              "  %-30s %-20s heartbeat %s ago%n",
              i.relayId(),
              i.host(),
              CliText.age(i.heartbeatAge()));
        }
        out.printf(
            Locale.ROOT,
            "partitions: %d (%d unowned, %d stranded)%n",
            s.partitions().size(),
            s.unowned().size(),
            s.stranded().size());
        Map<String, long[]> byOwner = new java.util.TreeMap<>();
        for (OutboxStatus.Partition p : s.partitions()) {
          long[] c = byOwner.computeIfAbsent(p.owned() ? p.owner() : "", o -> new long[2]);
          c[0]++;
          c[1] += p.pending();
        }
        byOwner.forEach(
            (owner, c) ->
                out.printf(
                    Locale.ROOT,
                    "  %s: %d partitions, %d pending%n",
                    owner.isEmpty() ? "unowned" : "owner " + owner,
                    c[0],
                    c[1]));
        for (OutboxStatus.Partition p : partitions ? s.partitions() : s.stranded()) {
          out.printf(
              Locale.ROOT,
              "  partition %2d  %-30s %-20s %d pending%s%n",
              p.partition(),
              p.owner() == null ? "-" : p.owner(),
              p.leaseRemaining() == null
                  ? "free"
                  : p.owned() ? "lease " + CliText.age(p.leaseRemaining()) : "lease expired",
              p.pending(),
              !p.owned() && p.pending() > 0 ? "  STRANDED: no relay drains it" : "");
        }
      }
      out.flush();
      return s.stranded().isEmpty() ? 0 : 3;
    }
  }

  /** {@code tandem outbox quarantined}. */
  @Command(
      name = "quarantined",
      mixinStandardHelpOptions = true,
      header = "Lists quarantined events, oldest first, with their error.",
      description = "Events the relay gave up on (a permanent error or too many attempts).")
  static final class Quarantined implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Mixin ListingOptions listing;

    @Override
    public Integer call() throws Exception {
      int limit = listing.checkedLimit();
      boolean json = listing.json();
      List<QuarantinedEvent> events =
          withOutbox(database, ds -> OutboxOperations.create(ds).listQuarantined(limit));
      PrintWriter out = spec.commandLine().getOut();
      for (QuarantinedEvent q : events) {
        if (json) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("event_id", q.eventId().toString());
          m.put("aggregate_type", q.aggregateType());
          m.put("aggregate_id", q.aggregateId());
          m.put("aggregate_version", q.aggregateVersion());
          m.put("event_type", q.eventType());
          m.put("attempts", q.attempts());
          m.put("error_class", q.errorClass());
          m.put("last_error", q.lastError());
          m.put("quarantined_at", q.quarantinedAt() == null ? null : q.quarantinedAt().toString());
          m.put("created_at", q.createdAt().toString());
          out.println(JSON.writeValueAsString(m));
        } else {
          out.printf(
              Locale.ROOT,
              "%s  %s/%s v%d %s, %d attempts, %s: %s%n",
              q.eventId(),
              q.aggregateType(),
              q.aggregateId(),
              q.aggregateVersion(),
              q.eventType(),
              q.attempts(),
              q.errorClass(),
              CliText.shorten(String.valueOf(q.lastError()), 100));
        }
      }
      if (!json) {
        out.println(events.size() + " quarantined" + CliText.limitNote(events.size(), limit));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tandem outbox replay}. */
  @Command(
      name = "replay",
      mixinStandardHelpOptions = true,
      header = "Puts quarantined events back to pending, with their ids.",
      description = {
        "Puts a quarantined event (or --all of them) back to pending with its attempts reset;",
        "the relay publishes it again with the same event id, then its aggregate's later events."
      })
  static final class Replay implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Parameters(paramLabel = "EVENT_ID", arity = "0..1", description = "The event to replay.")
    UUID eventId;

    @Option(names = "--all", description = "Every quarantined event.")
    boolean all;

    @Override
    public Integer call() throws Exception {
      if (all == (eventId != null)) {
        throw new IllegalArgumentException("give either one EVENT_ID or --all");
      }
      PrintWriter out = spec.commandLine().getOut();
      if (all) {
        int n = withOutbox(database, ds -> OutboxOperations.create(ds).replayAll());
        out.println(CliText.count(n, "quarantined event") + " back to pending");
      } else {
        withOutbox(
            database,
            ds -> {
              OutboxOperations.create(ds).replay(eventId);
              return null;
            });
        out.println("event " + eventId + " back to pending");
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tandem outbox skip}. */
  @Command(
      name = "skip",
      mixinStandardHelpOptions = true,
      header = "Gives up on one unpublished event for good, with a reason.",
      description = {
        "The event is never published; its aggregate's later events flow again. The row and",
        "the reason stay in the table for review."
      })
  static final class Skip implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Parameters(paramLabel = "EVENT_ID", description = "The event to skip.")
    UUID eventId;

    @Option(
        names = "--reason",
        required = true,
        description = "Why, kept in the row (e.g. 'superseded by v8, ticket OPS-123').")
    String reason;

    @Override
    public Integer call() throws Exception {
      withOutbox(
          database,
          ds -> {
            OutboxOperations.create(ds).skip(eventId, reason);
            return null;
          });
      PrintWriter out = spec.commandLine().getOut();
      out.println("event " + eventId + " skipped: " + reason);
      out.flush();
      return 0;
    }
  }

  /** {@code tandem outbox retention}. */
  @Command(
      name = "retention",
      mixinStandardHelpOptions = true,
      header = "Deletes published events older than a retention (or counts them: --dry-run).",
      description = {
        "Only published rows older than --older-than and below the oldest pending event are",
        "deleted, in batches of 1000 (at most 100 per run); unpublished, quarantined and",
        "skipped rows never are."
      })
  static final class Retention implements Callable<Integer> {
    private static final Map<String, String> RETENTION_OPTIONS =
        Map.of("retention", "--older-than");

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(
        names = "--older-than",
        defaultValue = "7d",
        converter = DurationConverter.class,
        description = "Keep published rows younger than this (default ${DEFAULT-VALUE}).")
    Duration olderThan;

    @Option(names = "--dry-run", description = "Count what would be deleted; delete nothing.")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
      OutboxRetention.Builder settings = OutboxRetention.builder().retention(olderThan);
      CliText.checkSettings(settings::checkSettings, RETENTION_OPTIONS);
      OutboxRetention.RetentionResult r =
          withOutbox(
              database,
              ds -> {
                OutboxRetention retention = settings.dataSource(ds).build();
                if (dryRun) {
                  return retention.dryRun();
                }
                long eligible = retention.dryRun().rows();
                try (Progress bar = Progress.start("deleting", eligible, System.err)) {
                  return retention.run(bar::update);
                }
              });
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          Locale.ROOT,
          "%s %d published rows older than %s (below id %d)%s%n",
          r.dryRun() ? "would delete" : "deleted",
          r.rows(),
          olderThan,
          r.watermark(),
          r.dryRun() ? "" : " in " + r.batches() + " batches");
      out.flush();
      return 0;
    }
  }
}
