package io.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.cdc.CdcOperations;
import io.tandem.cdc.CdcRelay;
import io.tandem.cdc.CdcStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tandem cdc}: the operator's view of a CDC relay ({@link CdcOperations}). */
@Command(
    name = "cdc",
    mixinStandardHelpOptions = true,
    header = "Shows a CDC relay's replication slot or binlog position, lag and liveness.",
    description = {
      "Reads the database alone (PostgreSQL: pg_replication_slots; MariaDB: the stored binlog",
      "position against SHOW MASTER STATUS; and Tandem's tables): works whether the relay runs",
      "or not. docs/cdc.md explains each figure."
    },
    subcommands = {CdcCommand.Status.class})
final class CdcCommand extends CommandGroup {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code tandem cdc status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      header = "Lag in bytes and time, last published event, heartbeats, problems.",
      description = {
        "Exit status 0 when the slot streams within the alert thresholds, 1 when there is a",
        "problem (no slot or stored position, no client streaming, a purged binlog file, lag",
        "above a threshold): the table says which. MariaDB's lag is the binlog bytes written",
        "after the stored position, across files."
      })
  static final class Status implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;

    @Option(
        names = "--slot",
        defaultValue = CdcRelay.DEFAULT_SLOT_NAME,
        description =
            "Replication slot of the relay; on MariaDB its stored position's name"
                + " (default: ${DEFAULT-VALUE}).")
    String slot;

    @Option(
        names = "--lag-alert-bytes",
        defaultValue = "" + CdcRelay.DEFAULT_LAG_ALERT_BYTES,
        description =
            "WAL held by the slot (MariaDB: binlog bytes behind) above which it is lagging"
                + " (default: ${DEFAULT-VALUE}).")
    long lagAlertBytes;

    @Option(
        names = "--lag-alert-age",
        defaultValue = CdcRelay.DEFAULT_LAG_ALERT_SECONDS + "s",
        converter = DurationConverter.class,
        description =
            "Age of the oldest unpublished row above which it is lagging (default: ${DEFAULT-VALUE}).")
    Duration lagAlertAge;

    @Option(names = "--json", description = "One JSON object instead of the table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      CdcStatus s =
          database.withDatabase(
              "tandem-cdc-status",
              "tandem_cdc_relay",
              ds -> new CdcOperations(ds).status(slot, lagAlertBytes, lagAlertAge));
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(JSON.writeValueAsString(asJson(s)));
      } else {
        render(s, out);
      }
      out.flush();
      return s.problem().isPresent() ? 1 : 0;
    }

    private static void render(CdcStatus s, PrintWriter out) {
      boolean pg = s.database().equals("postgresql");
      String format = "%-22s %s%n";
      out.printf(Locale.ROOT, format, pg ? "slot" : "position name", s.slotName());
      out.printf(Locale.ROOT, format, "database", s.database());
      out.printf(
          Locale.ROOT,
          format,
          "streaming",
          !s.slotExists()
              ? (pg ? "no slot" : "no position stored")
              : s.slotActive()
                  ? "yes ("
                      + (pg ? "backend pid " : "binlog reader thread ")
                      + s.activePid().orElse(-1L)
                      + ")"
                  : "NO");
      out.printf(
          Locale.ROOT,
          format,
          pg ? "slot lag" : "binlog lag",
          s.slotLagBytes() < 0 ? "-" : s.slotLagBytes() + " bytes");
      out.printf(
          Locale.ROOT,
          format,
          pg ? "confirmed position" : "stored position",
          s.confirmedFlushLsn().orElse("-"));
      out.printf(Locale.ROOT, format, "server position", s.serverPosition().orElse("-"));
      out.printf(
          Locale.ROOT,
          format,
          "unpublished rows",
          s.pending() + (s.pending() > 0 ? ", oldest " + CliText.age(s.oldestPendingAge()) : ""));
      out.printf(Locale.ROOT, format, "relay", s.relayId().orElse("-"));
      out.printf(Locale.ROOT, format, "relay heartbeat", when(s.relayHeartbeatAt()));
      out.printf(Locale.ROOT, format, "last published", when(s.lastPublishedAt()));
      out.printf(Locale.ROOT, format, "position stored", when(s.lastFlushedAt()));
      if (pg) {
        out.printf(Locale.ROOT, format, "heartbeat row", when(s.lastHeartbeatRowAt()));
      }
      out.printf(Locale.ROOT, format, "status", s.problem().map(p -> "PROBLEM: " + p).orElse("ok"));
    }

    private static String when(Optional<Instant> at) {
      return at.map(Instant::toString).orElse("never");
    }

    private static Map<String, Object> asJson(CdcStatus s) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("slot", s.slotName());
      m.put("database", s.database());
      m.put("slot_exists", s.slotExists());
      m.put("streaming", s.slotActive());
      m.put("active_pid", s.activePid().orElse(null));
      m.put("confirmed_flush_lsn", s.confirmedFlushLsn().orElse(null));
      m.put("server_position", s.serverPosition().orElse(null));
      m.put("slot_lag_bytes", s.slotLagBytes() < 0 ? null : s.slotLagBytes());
      m.put("pending", s.pending());
      m.put("oldest_pending_age_ms", s.oldestPendingAge().toMillis());
      m.put("relay_id", s.relayId().orElse(null));
      m.put("relay_heartbeat_at", s.relayHeartbeatAt().map(Instant::toString).orElse(null));
      m.put("last_published_at", s.lastPublishedAt().map(Instant::toString).orElse(null));
      m.put("last_flushed_at", s.lastFlushedAt().map(Instant::toString).orElse(null));
      m.put("last_heartbeat_row_at", s.lastHeartbeatRowAt().map(Instant::toString).orElse(null));
      m.put("lagging", s.lagging());
      m.put("problem", s.problem().orElse(null));
      return m;
    }
  }
}
