package io.tandem.drill;

import io.tandem.core.FaultInjector;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.PostgresServer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The drills in which one process of the outbox flow dies at a fault point and a successor takes
 * over: the service after a commit, the relay (polling or CDC) after the broker's ack, the consumer
 * after its commit. Each returns what its checker read back.
 */
final class ProcessCrashDrills {

  private final DrillEnvironment env;
  private final DrillSettings settings;

  ProcessCrashDrills(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  private Scenario scenario(String name, boolean piped) throws SQLException {
    return new Scenario(name, settings, env.postgres(), env.postgres(), env.kafka(), piped);
  }

  /** The writing service dies right after a commit; a new instance finishes the work. */
  DrillResult serviceCrashAfterCommit(String name) throws Exception {
    try (Scenario s = scenario(name, false)) {
      List<String> detail = new ArrayList<>();
      String mode = settings.protection() ? "outbox" : "direct";
      detail.add(
          settings.protection()
              ? "protection on: business row and event committed together (outbox)"
              : "protection OFF: the service publishes to Kafka itself after its commit");
      JvmProcess consumer = s.consumerProcess(null);
      JvmProcess relay = s.relayProcess(null);
      // A third of the way through: the halt counts commits, each of changesPerCommit() changes.
      int haltAt = Math.max(1, settings.events() / 3 / s.changesPerCommit());
      JvmProcess first =
          s.serviceProcess(
              Faults.point(FaultInjector.SERVICE_AFTER_COMMIT, "halt", haltAt), 0, "--mode", mode);
      Scenario.awaitAllReady(consumer, relay);
      return replaceAfterFault(
          s,
          first,
          "service halted after commit "
              + haltAt
              + (s.changesPerCommit() > 1
                  ? " (" + s.changesPerCommit() + " changes per commit)"
                  : ""),
          () -> s.serviceProcess(null, 0, "--mode", mode),
          null,
          detail);
    }
  }

  /** The relay dies after the broker's ack and before marking; another relay republishes. */
  DrillResult relayCrashAfterAck(String name) throws Exception {
    if (settings.cdc()) {
      return cdcRelayCrashAfterAck(name);
    }
    try (Scenario s = scenario(name, false)) {
      List<String> detail = new ArrayList<>();
      detail.add(Protection.line(settings, Protection.INBOX, Protection.NO_INBOX));
      JvmProcess consumer = s.consumerProcess(null, Protection.consumerMode(settings));
      JvmProcess doomed = s.relayProcess(Faults.point(FaultInjector.RELAY_AFTER_ACK, "halt", 2));
      Scenario.awaitAllReady(consumer, doomed);
      JvmProcess service = s.serviceProcess(null, Math.max(20, settings.events() / 5));
      return replaceAfterFault(
          s,
          doomed,
          "relay halted after the broker's ack of its 2nd batch",
          () -> s.relayProcess(null),
          service,
          detail);
    }
  }

  /**
   * The CDC relay dies (SIGKILL) after the broker acknowledged its 2nd batch, before the batch's
   * position is stored ({@code cdc.before-offset-flush}); another CDC relay takes the slot over and
   * resumes from the stored position. Heartbeats every 5 minutes, so that only batches of events
   * flush positions and the 2nd flush follows an acknowledged batch of events.
   */
  private DrillResult cdcRelayCrashAfterAck(String name) throws Exception {
    PostgresServer own = CdcDrill.ownLogicalServer(env.postgres());
    String slot = CdcDrill.newSlot();
    try (Scenario s =
        new Scenario(
            name,
            settings,
            own != null ? own : env.postgres(),
            env.postgres(),
            env.kafka(),
            false)) {
      List<String> detail = new ArrayList<>();
      detail.add(Protection.line(settings, Protection.INBOX, Protection.NO_INBOX));
      detail.add(
          "relay: the CDC relay (slot "
              + slot
              + (own != null
                  ? ", service database on an embedded PostgreSQL, wal_level=logical"
                  : "")
              + ")");
      try {
        JvmProcess consumer = s.consumerProcess(null, Protection.consumerMode(settings));
        JvmProcess doomed =
            s.cdcRelayProcess(
                Faults.point(FaultInjector.CDC_BEFORE_OFFSET_FLUSH, "kill", 2),
                slot,
                "--heartbeat-ms",
                "300000");
        Scenario.awaitAllReady(consumer, doomed);
        JvmProcess service = s.serviceProcess(null, Math.max(20, settings.events() / 5));
        return replaceAfterFault(
            s,
            doomed,
            "CDC relay killed after the broker's ack of its 2nd batch, before storing its position",
            () -> s.cdcRelayProcess(null, slot),
            service,
            detail);
      } finally {
        s.closeProcesses();
        CdcDrill.dropSlot(s.service(), slot);
      }
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /** A consumer dies after its transaction commits, before it acknowledges. */
  DrillResult consumerCrashAfterCommit(String name) throws Exception {
    try (Scenario s = scenario(name, false)) {
      List<String> detail = new ArrayList<>();
      detail.add(Protection.line(settings, Protection.INBOX, Protection.NO_INBOX));
      int haltAt = Math.max(1, settings.events() / 3);
      JvmProcess doomed =
          s.consumerProcess(
              Faults.point(FaultInjector.CONSUMER_AFTER_COMMIT, "halt", haltAt),
              Protection.consumerMode(settings));
      JvmProcess relay = s.relayProcess(null);
      Scenario.awaitAllReady(doomed, relay);
      JvmProcess service = s.serviceProcess(null, 0);
      return replaceAfterFault(
          s,
          doomed,
          "consumer halted after commit " + haltAt + ", before its ack",
          () -> s.consumerProcess(null, Protection.consumerMode(settings)),
          service,
          detail);
    }
  }

  /**
   * The common shape of the process-death drills: {@code doomed} dies at its fault point, a {@code
   * replacement} starts, and the system must settle (with {@code service} done writing; null when
   * the replacement is the service itself).
   */
  private static DrillResult replaceAfterFault(
      Scenario s,
      JvmProcess doomed,
      String what,
      Supplier<JvmProcess> replacement,
      JvmProcess service,
      List<String> detail)
      throws Exception {
    // Waits as long as the drill may take to settle: at 100,000 events the fault a third of the
    // way through comes minutes after the start, and a successor started beside a live process
    // would prove nothing.
    Duration wait = Faults.exitWait(s.settings);
    boolean fired = Faults.diedAtItsFault(doomed, what, detail, wait);
    long faultAt = System.nanoTime();
    JvmProcess successor = replacement.get();
    successor.awaitOutput(RoleMain.READY, Scenario.START);
    boolean settled = s.awaitSettled(service != null ? service : successor);
    return s.verdict(faultAt, settled, fired, detail);
  }
}
