package io.tandem.drill;

import io.tandem.cdc.CdcOperations;
import io.tandem.cdc.CdcStatus;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.OutboxOperations;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * {@code cdc-stopped}: the CDC relay (Debezium on the service database's WAL) is stopped while the
 * service goes on writing; the replication slot holds the WAL, its lag grows past the alert
 * threshold (what {@code tandem cdc status} and {@code tandem.cdc.slot.lag} report), a relay is
 * started again on the same slot, and every committed event must reach the consumer once, in order,
 * with the alert cleared.
 */
final class CdcDrill {
  /** The drill's lag alert: the slot holding more WAL than this while the relay is stopped. */
  static final long LAG_ALERT_BYTES = 1024 * 1024;

  /** WAL that other tables of the service database get while the relay is stopped. */
  private static final long OTHER_WRITES_BYTES = 2 * LAG_ALERT_BYTES;

  private static final Duration NO_AGE_ALERT = Duration.ofDays(1);

  private final DrillEnvironment env;
  private final DrillSettings settings;

  CdcDrill(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  DrillResult run(String name) throws Exception {
    if (!settings.protection()) {
      return DrillResult.notAvailable(
          name,
          "no unprotected form: the CDC relay's stored position and its start-up drain of"
              + " unpublished rows cannot be switched off (broken variants are shown in its tests)");
    }
    PostgresServer own = ownLogicalServer(env.postgres());
    PostgresServer serviceServer = own != null ? own : env.postgres();
    String slot = newSlot();
    try (Scenario s =
        new Scenario(name, settings, serviceServer, env.postgres(), env.kafka(), false)) {
      List<String> detail = new ArrayList<>();
      detail.add(
          "protection on: the slot and the stored position keep every change while the relay is"
              + " down"
              + (own != null
                  ? " (service database on an embedded PostgreSQL, wal_level=logical)"
                  : ""));
      CdcOperations operations = new CdcOperations(s.service());
      try {
        return run(s, slot, operations, detail);
      } finally {
        s.closeProcesses();
        dropSlot(s.service(), slot);
      }
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  private DrillResult run(Scenario s, String slot, CdcOperations operations, List<String> detail)
      throws Exception {
    JvmProcess consumer = s.consumerProcess(null);
    JvmProcess first = s.cdcRelayProcess(null, slot);
    Scenario.awaitAllReady(consumer, first);
    // about twelve seconds of writes: the relay is stopped while they go on
    int rate = Math.max(10, settings.events() / 12);
    JvmProcess service = s.serviceProcess(null, rate);
    service.awaitOutput(RoleMain.READY, Scenario.START);
    boolean streamed =
        Scenario.await(() -> published(s) >= settings.events() / 6, Duration.ofSeconds(30));
    // the alert is off while the relay streams (heartbeats follow the WAL others write)
    boolean offBefore =
        Scenario.await(
            () -> status(operations, slot).slotLagBytes() <= LAG_ALERT_BYTES,
            Duration.ofSeconds(10));
    CdcStatus before = operations.status(slot, LAG_ALERT_BYTES, NO_AGE_ALERT);
    first.close(); // SIGTERM: the relay stores its position and stops; the slot stays
    boolean stopped =
        Scenario.await(() -> !status(operations, slot).slotActive(), Duration.ofSeconds(20));
    long stoppedAt = System.nanoTime();
    detail.add(
        String.format(
            Locale.ROOT,
            "CDC relay stopped after %d events published (slot lag then %d bytes, alert %s); the"
                + " service went on writing, and %d bytes went into another table",
            published(s),
            before.slotLagBytes(),
            offBefore ? "off" : "ALREADY ON",
            OTHER_WRITES_BYTES));
    writeOtherTables(s.service());
    // the outage lasts until the alert fires (at least two seconds), or 30 s
    boolean alert =
        Scenario.await(
            () ->
                System.nanoTime() - stoppedAt > TimeUnit.SECONDS.toNanos(2)
                    && status(operations, slot).slotLagBytes() > LAG_ALERT_BYTES,
            Duration.ofSeconds(30));
    CdcStatus during = operations.status(slot, LAG_ALERT_BYTES, NO_AGE_ALERT);
    long writtenMeanwhile = s.count(s.service(), "SELECT count(*) FROM drill_changes");
    detail.add(
        String.format(
            Locale.ROOT,
            "while stopped: slot lag %d bytes (alert above %d: %s), %d rows waiting, %d changes"
                + " committed so far; tandem cdc status: %s",
            during.slotLagBytes(),
            LAG_ALERT_BYTES,
            alert && during.lagging() ? "fired" : "NOT fired",
            during.pending(),
            writtenMeanwhile,
            during.problem().orElse("no problem")));
    boolean grew = during.slotLagBytes() > before.slotLagBytes();
    JvmProcess resumed = s.cdcRelayProcess(null, slot);
    resumed.awaitOutput(RoleMain.READY, Scenario.START);
    long faultAt = System.nanoTime();
    detail.add("a CDC relay started again on slot " + slot);
    boolean settled = s.awaitSettled(service);
    boolean cleared =
        settled
            && Scenario.await(
                () -> {
                  CdcStatus st = status(operations, slot);
                  return st.slotActive() && !st.lagging();
                },
                Duration.ofSeconds(20));
    CdcStatus after = operations.status(slot, LAG_ALERT_BYTES, NO_AGE_ALERT);
    detail.add(
        String.format(
            Locale.ROOT,
            "after the resume: slot lag %d bytes, %d rows waiting, alert %s",
            after.slotLagBytes(),
            after.pending(),
            cleared ? "cleared" : "STILL ON"));
    boolean faultHappened =
        streamed && offBefore && stopped && grew && alert && during.lagging() && cleared;
    if (!faultHappened) {
      detail.add(
          String.format(
              Locale.ROOT,
              "FAIL: streamed before the stop %s, alert off before it %s, slot released %s, WAL"
                  + " held grew %s, lag alert fired %s, cleared after the resume %s",
              streamed,
              offBefore,
              stopped,
              grew,
              alert && during.lagging(),
              cleared));
    }
    return s.verdict(faultAt, settled, faultHappened, detail);
  }

  /** Other tables' writes: WAL the stopped relay's slot holds as well as the outbox's. */
  private static void writeOtherTables(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS drill_other_writes (id bigint, filler text)");
      st.execute(
          "INSERT INTO drill_other_writes SELECT g, repeat('x', 1000) FROM generate_series(1, "
              + OTHER_WRITES_BYTES / 1000
              + ") g");
    }
  }

  private static long published(Scenario s) {
    try {
      return OutboxOperations.create(s.service()).status().published();
    } catch (JdbcException e) {
      return 0;
    }
  }

  private static CdcStatus status(CdcOperations operations, String slot) {
    return operations.status(slot, LAG_ALERT_BYTES, NO_AGE_ALERT);
  }

  /**
   * An embedded PostgreSQL with {@code wal_level=logical} for the service database, or null when
   * {@code given} has it already (the CDC relay reads the WAL by logical decoding).
   */
  static PostgresServer ownLogicalServer(PostgresServer given) {
    return isLogical(given) ? null : logicalServer();
  }

  /** A slot name of its own for one drill run. */
  static String newSlot() {
    return "drill_cdc_" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static boolean isLogical(PostgresServer server) {
    return new CdcOperations(server.dataSource()).streamingUnavailable().isEmpty();
  }

  private static PostgresServer logicalServer() {
    return PostgresServer.embedded()
        .serverConfig("wal_level", "logical")
        .serverConfig("max_replication_slots", "10")
        .serverConfig("max_wal_senders", "10")
        .start();
  }

  /**
   * Drops the drill's slot, so that it holds no WAL after the drill: its WAL sender may still be
   * active for a moment after the relay's process ended.
   */
  static void dropSlot(DataSource ds, String slot) throws InterruptedException {
    try {
      if (!new CdcOperations(ds).dropSlotOnceReleased(slot, Duration.ofSeconds(20))) {
        System.err.println(
            "replication slot " + slot + " still active after 20 s: drop it by hand");
      }
    } catch (JdbcException e) {
      System.err.println("could not drop replication slot " + slot + ": " + e.getMessage());
    }
  }
}
