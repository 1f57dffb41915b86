package io.tandem.drill;

import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The drills in which the broker fails under load: an outage, and a failover on a cluster. */
final class BrokerDrills {

  private final DrillEnvironment env;
  private final DrillSettings settings;

  BrokerDrills(DrillEnvironment env) {
    this.env = env;
    this.settings = env.settings();
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
}
