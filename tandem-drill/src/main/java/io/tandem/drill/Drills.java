package io.tandem.drill;

import io.tandem.core.FaultInjector;
import io.tandem.inbox.DeadLetter;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaCluster;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.ReplicatedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** The outbox and consumer drills. Each returns what its checker read back. */
final class Drills {

  private final DrillEnvironment env;
  private final DrillSettings settings;

  Drills(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
  }

  private Scenario scenario(String name, boolean piped) throws SQLException {
    return new Scenario(name, settings, env.postgres(), env.postgres(), env.kafka(), piped);
  }

  private String[] consumerMode() {
    return settings.protection() ? new String[0] : new String[] {"--mode", "bypass"};
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
      int haltAt = Math.max(1, settings.events() / 3);
      JvmProcess first =
          s.serviceProcess(
              Faults.point(FaultInjector.SERVICE_AFTER_COMMIT, "halt", haltAt), 0, "--mode", mode);
      Scenario.awaitAllReady(consumer, relay);
      return replaceAfterFault(
          s,
          first,
          "service halted after commit " + haltAt,
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
      detail.add(protectionLine(INBOX, NO_INBOX));
      JvmProcess consumer = s.consumerProcess(null, consumerMode());
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
      detail.add(protectionLine(INBOX, NO_INBOX));
      detail.add(
          "relay: the CDC relay (slot "
              + slot
              + (own != null
                  ? ", service database on an embedded PostgreSQL, wal_level=logical"
                  : "")
              + ")");
      try {
        JvmProcess consumer = s.consumerProcess(null, consumerMode());
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

  /**
   * The broker is stopped under load, then started again (on a Kafka cluster, {@code
   * --kafka-cluster}: every node killed, then all started again).
   */
  DrillResult brokerOutage(String name) throws Exception {
    KafkaCluster cluster = env.cluster();
    KafkaBroker own =
        cluster == null && !env.kafka().isEmbedded() ? KafkaBroker.embedded().start() : null;
    KafkaBroker kafka = own != null ? own : env.kafka();
    Runnable down = cluster != null ? cluster::killAll : kafka::stop;
    Runnable up = cluster != null ? cluster::restartAll : kafka::restart;
    try (Scenario s = new Scenario(name, settings, env.postgres(), env.postgres(), kafka, false)) {
      List<String> detail = new ArrayList<>();
      if (own != null) {
        detail.add(
            "the given Kafka cannot be stopped by a drill: this drill ran on its own embedded broker");
      }
      if (cluster != null) {
        detail.add("every node of the Kafka cluster killed with SIGKILL, then all started again");
      }
      String mode = settings.protection() ? "outbox" : "direct";
      detail.add(
          settings.protection()
              ? "protection on: events wait in the outbox while the broker is down"
              : "protection OFF: the service publishes after its commit and gives up on failed sends");
      JvmProcess consumer = s.consumerProcess(null);
      JvmProcess relay = s.relayProcess(null);
      Scenario.awaitAllReady(consumer, relay);
      long outageSeconds = settings.outage().toSeconds();
      int rate = (int) Math.max(5, settings.events() / (outageSeconds + 8));
      JvmProcess service = s.serviceProcess(null, rate, "--mode", mode);
      service.awaitOutput(RoleMain.READY, Scenario.START);
      TimeUnit.SECONDS.sleep(3);
      long before = s.count(s.service(), "SELECT count(*) FROM drill_changes");
      down.run();
      TimeUnit.MILLISECONDS.sleep(settings.outage().toMillis());
      long during = s.count(s.service(), "SELECT count(*) FROM drill_changes") - before;
      up.run();
      long faultAt = System.nanoTime();
      detail.add(
          "broker down for "
              + settings.outage().toSeconds()
              + " s; the service committed "
              + during
              + " changes meanwhile");
      boolean settled = s.awaitSettled(service);
      return s.verdict(faultAt, settled, during > 0, detail);
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /**
   * The broker leading a partition of the relay's topic is killed with SIGKILL under load, on a
   * 3-node cluster (replication 3, {@code min.insync.replicas} 2), while the partition's two
   * followers are cut off (paused) for 1.5 s; the followers resume, one of them takes over, and the
   * killed node starts again. The relay's producer uses {@code acks=all}: nothing the followers do
   * not have is acknowledged, so nothing marked published is lost with the leader. That setting
   * cannot be switched off ({@code KafkaTransport} refuses {@code acks} other than {@code all}):
   * without protection this drill is not available.
   */
  DrillResult brokerFailover(String name) throws Exception {
    if (!settings.protection()) {
      return DrillResult.notAvailable(
          name,
          "the relay's acks=all cannot be switched off (KafkaTransport refuses other acks):"
              + " not counted");
    }
    KafkaCluster own = env.cluster() == null ? KafkaCluster.start(3) : null;
    KafkaCluster cluster = own != null ? own : env.cluster();
    try (Scenario s =
        new Scenario(name, settings, env.postgres(), env.postgres(), cluster.broker(), false)) {
      List<String> detail = new ArrayList<>();
      detail.add(
          "protection on: the relay publishes with acks=all; a record is acknowledged once 2 of"
              + " its 3 replicas have it");
      if (own != null) {
        detail.add("on a 3-node Kafka cluster of the drill's own");
      }
      JvmProcess consumer = s.consumerProcess(null);
      JvmProcess relay = s.relayProcess(null);
      Scenario.awaitAllReady(consumer, relay);
      int rate = Math.max(20, settings.events() / 8);
      JvmProcess service = s.serviceProcess(null, rate);
      service.awaitOutput(RoleMain.READY, Scenario.START);
      TimeUnit.MILLISECONDS.sleep(3000);
      int leader = cluster.leaderOf(s.relayTopic, 0);
      List<Integer> followers = new ArrayList<>(cluster.nodeIds());
      followers.remove(Integer.valueOf(leader));
      followers.forEach(cluster::pause);
      TimeUnit.MILLISECONDS.sleep(1500);
      cluster.kill(leader);
      long killedAt = System.nanoTime();
      followers.forEach(cluster::resume);
      boolean elected =
          Scenario.await(
              () -> {
                try {
                  return cluster.leaderOf(s.relayTopic, 0) != leader;
                } catch (RuntimeException e) {
                  return false;
                }
              },
              Duration.ofSeconds(60));
      long electedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
      // The killed node comes back while the system catches up, as a restarted machine would.
      CompletableFuture<Long> restarted =
          CompletableFuture.supplyAsync(
              () -> {
                cluster.restart(leader);
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
              });
      boolean settled = s.awaitSettled(service);
      long restartedMs = restarted.get(2, TimeUnit.MINUTES);
      detail.add(
          "the followers of partition 0 cut off for 1.5 s, then its leader (node "
              + leader
              + ") killed with SIGKILL; "
              + (elected ? "a new leader after " + electedMs + " ms" : "no new leader within 60 s")
              + "; node "
              + leader
              + " serving again "
              + restartedMs
              + " ms after the kill");
      detail.add("recovery is counted from the kill");
      long faultAt = killedAt;
      return s.verdict(faultAt, settled, elected, detail);
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /** Messages reach the consumer twice (a pipe between the relay's topic and the consumer's). */
  DrillResult duplicateDelivery(String name) throws Exception {
    return piped(
        name,
        records -> {
          List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
          for (int i = 0; i < records.size(); i++) {
            out.add(records.get(i));
            if (i >= 5 && i % 2 == 0) {
              out.add(records.get(i - 5)); // a redelivery, a little later
            }
          }
          out.addAll(records.subList(Math.max(0, records.size() - 5), records.size()));
          return out;
        },
        "every other message delivered a second time",
        protectionLine(INBOX, NO_INBOX),
        consumerMode());
  }

  /** Versions of an aggregate reach the consumer shuffled. */
  DrillResult outOfOrder(String name) throws Exception {
    return piped(
        name,
        records -> {
          List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>(records);
          Collections.shuffle(out, new Random(42));
          return out;
        },
        "all messages delivered in a shuffled order",
        protectionLine(
            "the consumer's ordering guard parks early versions",
            "the consumer applies events as they come (ordering guard off)"),
        settings.protection() ? new String[0] : new String[] {"--unordered"});
  }

  private DrillResult piped(
      String name,
      UnaryOperator<List<ConsumerRecord<byte[], byte[]>>> fault,
      String faultText,
      String protectionText,
      String[] consumerArgs)
      throws Exception {
    try (Scenario s = scenario(name, true)) {
      List<String> detail = new ArrayList<>();
      detail.add(protectionText);
      JvmProcess consumer = s.consumerProcess(null, consumerArgs);
      JvmProcess relay = s.relayProcess(null);
      JvmProcess service = s.serviceProcess(null, 0);
      Scenario.awaitAllReady(consumer, relay);
      service.awaitExit(Faults.EXIT);
      boolean published =
          Scenario.await(
              () -> {
                try {
                  return s.count(
                          s.service(),
                          "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL")
                      == 0;
                } catch (SQLException e) {
                  return false;
                }
              },
              settings.timeout());
      List<ConsumerRecord<byte[], byte[]>> records = Broker.readAll(env.kafka(), s.relayTopic);
      List<ConsumerRecord<byte[], byte[]>> delivered = fault.apply(records);
      long faultAt = System.nanoTime();
      Broker.send(env.kafka(), s.consumerTopic, delivered);
      detail.add(
          faultText
              + ": "
              + records.size()
              + " published records, "
              + delivered.size()
              + " delivered");
      boolean settled = published && s.awaitSettled(null);
      return s.verdict(faultAt, settled, !records.isEmpty(), detail);
    }
  }

  /** A consumer dies after its transaction commits, before it acknowledges. */
  DrillResult consumerCrashAfterCommit(String name) throws Exception {
    try (Scenario s = scenario(name, false)) {
      List<String> detail = new ArrayList<>();
      detail.add(protectionLine(INBOX, NO_INBOX));
      int haltAt = Math.max(1, settings.events() / 3);
      JvmProcess doomed =
          s.consumerProcess(
              Faults.point(FaultInjector.CONSUMER_AFTER_COMMIT, "halt", haltAt), consumerMode());
      JvmProcess relay = s.relayProcess(null);
      Scenario.awaitAllReady(doomed, relay);
      JvmProcess service = s.serviceProcess(null, 0);
      return replaceAfterFault(
          s,
          doomed,
          "consumer halted after commit " + haltAt + ", before its ack",
          () -> s.consumerProcess(null, consumerMode()),
          service,
          detail);
    }
  }

  /** A poison event is quarantined (dead-lettered), then replayed by the operator. */
  DrillResult quarantineReplay(String name) throws Exception {
    try (Scenario s = scenario(name, false)) {
      List<String> detail = new ArrayList<>();
      detail.add(
          protectionLine(
              "failing events are dead-lettered (quarantined) and replayable",
              "the consumer logs and drops an event whose effect fails"));
      int poisonAt = settings.events() / 2;
      JvmProcess consumer = s.consumerProcess(null, consumerMode());
      JvmProcess relay = s.relayProcess(null);
      Scenario.awaitAllReady(consumer, relay);
      JvmProcess service = s.serviceProcess(null, 0, "--poison-at", Integer.toString(poisonAt));
      service.awaitExit(Faults.EXIT);
      InboxProcessor operator =
          InboxProcessor.builder()
              .dataSource(s.consumer())
              .consumer(RoleMain.CONSUMER)
              .onAnyEventType(1, DrillEffects::apply)
              .build();
      boolean quarantined =
          Scenario.await(
              () -> !operator.deadLetters(DeadLetterStatus.DEAD, 0, 10).isEmpty(),
              Duration.ofSeconds(settings.protection() ? settings.timeout().toSeconds() : 10));
      long faultAt = System.nanoTime();
      if (quarantined) {
        long appliedBefore = s.count(s.consumer(), "SELECT count(*) FROM drill_effects");
        DeadLetter letter = operator.deadLetters(DeadLetterStatus.DEAD, 0, 10).get(0);
        detail.add(
            "event of change "
                + poisonAt
                + " quarantined as dead letter #"
                + letter.id()
                + " ("
                + letter.reason()
                + "); "
                + appliedBefore
                + " effects applied meanwhile");
        try (Connection c = s.consumer().getConnection();
            Statement st = c.createStatement()) {
          st.executeUpdate("UPDATE drill_rules SET enabled = false WHERE name = 'reject-poison'");
        }
        faultAt = System.nanoTime();
        Outcome outcome = operator.replay(letter.id());
        detail.add("operator fixed the rule and replayed #" + letter.id() + ": " + outcome);
      } else {
        detail.add("no dead letter appeared: the poison event was not quarantined");
      }
      boolean settled = s.awaitSettled(null);
      return s.verdict(faultAt, settled, quarantined, detail);
    }
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
    boolean fired = Faults.diedAtItsFault(doomed, what, detail);
    long faultAt = System.nanoTime();
    JvmProcess successor = replacement.get();
    successor.awaitOutput(RoleMain.READY, Scenario.START);
    boolean settled = s.awaitSettled(service != null ? service : successor);
    return s.verdict(faultAt, settled, fired, detail);
  }

  private String protectionLine(String on, String off) {
    return settings.protection() ? "protection on: " + on : "protection OFF: " + off;
  }

  private static final String INBOX = "the consumer applies events through its inbox";
  private static final String NO_INBOX =
      "the consumer applies events without its inbox (no duplicate check)";
}
