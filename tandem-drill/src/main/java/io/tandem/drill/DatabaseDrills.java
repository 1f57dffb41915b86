package io.tandem.drill;

import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.ReplicatedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The drills in which the database fails under load: a crash and restart, and a failover. */
final class DatabaseDrills {

  private final DrillEnvironment env;
  private final DrillSettings settings;

  DatabaseDrills(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  /**
   * The service's database crashes under load and starts again. With the CDC relay ({@code --relay
   * cdc}) the server runs with {@code wal_level=logical} and the CDC relay streams from a slot of
   * the drill's own, reconnecting after the restart.
   */
  DrillResult databaseRestart(String name) throws Exception {
    PostgresServer.Builder b = PostgresServer.embedded().durable(true);
    String slot = settings.cdc() ? CdcDrill.newSlot() : null;
    if (slot != null) {
      b.serverConfig("wal_level", "logical");
    }
    if (!settings.protection()) {
      // Commits acknowledged before their WAL is flushed; the WAL writer waits 10 s.
      b.serverConfig("synchronous_commit", "off").serverConfig("wal_writer_delay", "10000ms");
    }
    try (PostgresServer serviceServer = b.start();
        Scenario s =
            new Scenario(name, settings, serviceServer, env.postgres(), env.kafka(), false)) {
      // The drill's schema must survive the crash in any case: make it durable now.
      try (Connection c = s.service().getConnection();
          Statement st = c.createStatement()) {
        st.execute("CHECKPOINT");
      }
      List<String> detail = new ArrayList<>();
      detail.add(
          settings.protection()
              ? "protection on: the service database's commits are durable (synchronous_commit on)"
              : "protection OFF: the service database acknowledges commits before they are durable");
      if (!env.postgres().isEmbedded()) {
        detail.add(
            "the given PostgreSQL is not restarted by a drill: the service database ran on an embedded server");
      }
      if (slot != null) {
        detail.add("relay: the CDC relay (slot " + slot + "), reconnecting after the restart");
      }
      JvmProcess consumer = s.consumerProcess(null);
      JvmProcess relay = slot != null ? s.cdcRelayProcess(null, slot) : s.relayProcess(null);
      Scenario.awaitAllReady(consumer, relay);
      int rate = Math.max(20, settings.events() / 8);
      JvmProcess service = s.serviceProcess(null, rate);
      service.awaitOutput(RoleMain.READY, Scenario.START);
      TimeUnit.MILLISECONDS.sleep(2500);
      serviceServer.crash();
      long crashedAt = System.nanoTime();
      TimeUnit.SECONDS.sleep(2);
      serviceServer.startAgain();
      long faultAt = System.nanoTime();
      detail.add(
          "service database crashed (immediate shutdown) and was back after "
              + TimeUnit.NANOSECONDS.toMillis(faultAt - crashedAt)
              + " ms");
      boolean settled = s.awaitSettled(service);
      DrillResult result = s.verdict(faultAt, settled, true, detail);
      if (slot != null) {
        s.closeProcesses();
        CdcDrill.dropSlot(s.service(), slot);
      }
      return result;
    }
  }

  /**
   * The primary of the service's and the consumer's databases is lost under load (every server
   * process killed with SIGKILL) while its standby is a second behind, and the standby is promoted.
   * Every process is on a multi-host URL and finds the new primary by itself. With protection on
   * the standby is synchronous: what was acknowledged to the service is on the standby. Off, it is
   * asynchronous: what the primary acknowledged while the standby lagged is lost with it.
   */
  DrillResult databaseFailover(String name) throws Exception {
    ReplicatedPostgres.Replication replication =
        settings.protection()
            ? ReplicatedPostgres.Replication.SYNCHRONOUS
            : ReplicatedPostgres.Replication.ASYNCHRONOUS;
    try (ReplicatedPostgres pair = ReplicatedPostgres.start(replication);
        Scenario s =
            new Scenario(name, settings, pair.server(), pair.server(), env.kafka(), false)) {
      List<String> detail = new ArrayList<>();
      detail.add(
          settings.protection()
              ? "protection on: a synchronous standby; a commit is acknowledged once both servers"
                  + " have it"
              : "protection OFF: an asynchronous standby; the primary acknowledges commits the"
                  + " standby may not have");
      detail.add(
          "the service's and the consumer's databases on a primary with a standby, reached through"
              + " one multi-host URL (targetServerType=primary)");
      JvmProcess consumer = s.consumerProcess(null);
      JvmProcess relay = s.relayProcess(null);
      Scenario.awaitAllReady(consumer, relay);
      int rate = Math.max(20, settings.events() / 8);
      JvmProcess service = s.serviceProcess(null, rate);
      service.awaitOutput(RoleMain.READY, Scenario.START);
      TimeUnit.MILLISECONDS.sleep(2500);
      pair.pauseStandby();
      TimeUnit.MILLISECONDS.sleep(1000);
      long promotedAfter = pair.failOver();
      long faultAt = System.nanoTime();
      detail.add(
          "standby cut off for 1 s, then the primary killed (SIGKILL of every server process);"
              + " the standby accepted writes "
              + promotedAfter
              + " ms after the kill");
      boolean settled = s.awaitSettled(service);
      return s.verdict(faultAt, settled, true, detail);
    }
  }
}
