package io.tandem.testkit;

import io.tandem.testkit.internal.ClusterReadiness;
import io.tandem.testkit.internal.ExitCleanup;
import io.tandem.testkit.internal.FreePorts;
import io.tandem.testkit.internal.KraftNode;
import io.tandem.testkit.internal.Signals;
import io.tandem.testkit.internal.TemporaryDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * A Kafka cluster of several KRaft nodes (broker and controller each), every node in a child JVM of
 * its own so that a test can kill one with SIGKILL, pause it, and start it again on its data.
 * Topics get {@value #REPLICATION} replicas and accept a write once {@value #MIN_INSYNC} have it
 * ({@code min.insync.replicas}); a producer with {@code acks=all} is acknowledged only then.
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.start(3)) {
 *   KafkaBroker kafka = cluster.broker();       // a handle for clients, topics, drills
 *   kafka.createTopic("orders", 4);
 *   int leader = cluster.leaderOf("orders", 0);
 *   cluster.kill(leader);                        // SIGKILL
 *   cluster.restart(leader);                     // same ports, same log directory
 * }
 * }</pre>
 */
public final class KafkaCluster implements AutoCloseable {

  /** Replicas of every topic. */
  public static final int REPLICATION = 3;

  /** Replicas that must have a write before it is acknowledged to {@code acks=all}. */
  public static final int MIN_INSYNC = 2;

  private static final Duration STARTUP = Duration.ofSeconds(120);

  private final Path directory;
  private final List<Node> nodes;
  private final String bootstrapServers;
  private final ExitCleanup.Registration exitCleanup;
  private KafkaBroker handle;
  private boolean closed;

  private record Node(int id, Path directory, String listener) {}

  private final Map<Integer, JvmProcess> running = new LinkedHashMap<>();
  private int launches; // each run its own log, so that a restart waits for its own ready line

  private KafkaCluster(Path directory, List<Node> nodes) {
    this.directory = directory;
    this.nodes = nodes;
    this.bootstrapServers = nodes.stream().map(Node::listener).collect(Collectors.joining(","));
    this.exitCleanup =
        ExitCleanup.register("stop the Kafka cluster at " + bootstrapServers, this::stop);
  }

  /**
   * Formats and starts a cluster of {@code size} nodes ({@value #REPLICATION} or more) on free
   * loopback ports; returns once every node is a broker of the cluster.
   *
   * @throws IllegalArgumentException if {@code size} is less than {@value #REPLICATION}
   * @throws IllegalStateException if the cluster does not come up within two minutes
   */
  public static KafkaCluster start(int size) {
    if (size < REPLICATION) {
      throw new IllegalArgumentException(
          "A Kafka cluster needs at least " + REPLICATION + " nodes here, was " + size);
    }
    int[] ports = FreePorts.allocate(2 * size);
    Path directory = TemporaryDirectory.create("tandem-kafka-cluster-");
    List<Node> nodes = new ArrayList<>();
    StringBuilder voters = new StringBuilder();
    for (int i = 0; i < size; i++) {
      voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(ports[2 * i + 1]);
      nodes.add(new Node(i + 1, directory.resolve("node-" + (i + 1)), "127.0.0.1:" + ports[2 * i]));
    }
    String clusterId = Uuid.randomUuid().toString();
    for (int i = 0; i < size; i++) {
      Node node = nodes.get(i);
      Map<String, String> config = new LinkedHashMap<>();
      config.put("process.roles", "broker,controller");
      config.put("node.id", String.valueOf(node.id()));
      config.put("controller.quorum.voters", voters.toString());
      config.put(
          "listeners",
          "PLAINTEXT://" + node.listener() + ",CONTROLLER://127.0.0.1:" + ports[2 * i + 1]);
      config.put("advertised.listeners", "PLAINTEXT://" + node.listener());
      config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
      config.put("controller.listener.names", "CONTROLLER");
      config.put("inter.broker.listener.name", "PLAINTEXT");
      config.put("log.dirs", node.directory().resolve("data").toString());
      config.putAll(
          KraftNode.replicationDefaults(KafkaBroker.DEFAULT_PARTITIONS, REPLICATION, MIN_INSYNC));
      config.put("unclean.leader.election.enable", "false");
      // A killed node is fenced, and its partitions led elsewhere, within seconds.
      config.put("broker.session.timeout.ms", "4000");
      config.put("broker.heartbeat.interval.ms", "500");
      config.put(KafkaClusterNodeMain.CLUSTER_ID, clusterId);
      config.put(KafkaClusterNodeMain.BOOTSTRAP, node.listener());
      writeSettings(node.directory(), config);
    }
    KafkaCluster cluster = new KafkaCluster(directory, nodes);
    try {
      for (Node node : nodes) {
        cluster.launch(node);
      }
      for (Node node : nodes) {
        cluster.awaitReady(node);
      }
      cluster.awaitBrokers(size);
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The {@code bootstrap.servers} value naming every node. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * A {@link KafkaBroker} handle on the cluster for clients and topics ({@link
   * KafkaBroker#createTopic} makes topics with the cluster's replication); it cannot stop the
   * cluster: use {@link #kill}, {@link #restart}.
   */
  public synchronized KafkaBroker broker() {
    if (handle == null) {
      handle = KafkaBroker.external(bootstrapServers);
    }
    return handle;
  }

  /** The node ids, 1 to size. */
  public List<Integer> nodeIds() {
    return nodes.stream().map(Node::id).toList();
  }

  /**
   * The id of the node leading {@code partition} of {@code topic}.
   *
   * @throws IllegalStateException if the topic is unknown or the partition has no leader
   */
  public int leaderOf(String topic, int partition) {
    TopicPartitionInfo info = describe(topic).partitions().get(partition);
    if (info.leader() == null || info.leader().isEmpty()) {
      throw new IllegalStateException(topic + "-" + partition + " has no leader");
    }
    return info.leader().id();
  }

  /** The ids of the replicas in sync for {@code partition} of {@code topic}. */
  public List<Integer> inSyncReplicas(String topic, int partition) {
    return describe(topic).partitions().get(partition).isr().stream()
        .map(org.apache.kafka.common.Node::id)
        .toList();
  }

  private TopicDescription describe(String topic) {
    try (Admin admin =
        Admin.create(ClusterReadiness.adminConfig(bootstrapServers, Duration.ofSeconds(10)))) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(20, TimeUnit.SECONDS)
          .get(topic);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Cannot describe topic " + topic + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Kills node {@code id} with SIGKILL (no shutdown) and waits until its process is gone. */
  public synchronized void kill(int id) {
    JvmProcess p = running.remove(id);
    if (p == null) {
      throw new IllegalStateException("Kafka node " + id + " is not running");
    }
    try {
      p.kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Pauses node {@code id} (SIGSTOP): it holds its connections but answers nothing, as a node cut
   * off by the network. {@link #resume} lets it go on.
   */
  public synchronized void pause(int id) {
    signal(id, "STOP");
  }

  /** Lets a {@link #pause paused} node go on (SIGCONT). */
  public synchronized void resume(int id) {
    signal(id, "CONT");
  }

  private void signal(int id, String signal) {
    JvmProcess p = running.get(id);
    if (p == null) {
      throw new IllegalStateException("Kafka node " + id + " is not running");
    }
    Signals.send(signal, p.pid());
  }

  /**
   * Starts killed node {@code id} again on its ports and log directory; returns once it serves
   * clients (it catches up with the others' records in the background).
   */
  public synchronized void restart(int id) {
    Node node = nodes.get(id - 1);
    if (running.containsKey(id)) {
      throw new IllegalStateException("Kafka node " + id + " is running: kill it first");
    }
    launch(node);
    awaitReady(node);
  }

  /** Kills every node with SIGKILL: the whole cluster is down, its data kept. */
  public synchronized void killAll() {
    for (int id : new ArrayList<>(running.keySet())) {
      kill(id);
    }
  }

  /**
   * Starts every node that is not running, all at once (a node waits for a quorum of controllers to
   * serve), and returns once each serves clients again.
   */
  public synchronized void restartAll() {
    List<Node> down = nodes.stream().filter(n -> !running.containsKey(n.id())).toList();
    down.forEach(this::launch);
    down.forEach(this::awaitReady);
  }

  private void launch(Node node) {
    JvmProcess p =
        JvmProcess.start(
            directory,
            "kafka-node-" + node.id() + "-run-" + (++launches),
            List.of("-Xmx384m"),
            KafkaClusterNodeMain.class.getName(),
            List.of(node.directory().toString()));
    running.put(node.id(), p);
  }

  private void awaitReady(Node node) {
    JvmProcess p = running.get(node.id());
    try {
      p.awaitOutput(KafkaClusterNodeMain.READY, STARTUP);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Kafka node " + node.id() + " did not start: " + e.getMessage() + "; see " + p.log(), e);
    }
  }

  private void awaitBrokers(int size) {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    try (Admin admin =
        Admin.create(ClusterReadiness.adminConfig(bootstrapServers, Duration.ofSeconds(5)))) {
      while (System.nanoTime() < deadline) {
        try {
          if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= size) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          // not yet
        }
        TimeUnit.MILLISECONDS.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    throw new IllegalStateException(
        "The Kafka cluster at " + bootstrapServers + " did not list " + size + " brokers in time");
  }

  private static void writeSettings(Path nodeDirectory, Map<String, String> config) {
    try {
      Files.createDirectories(nodeDirectory);
      Properties properties = new Properties();
      properties.putAll(config);
      try (Writer w =
          Files.newBufferedWriter(
              nodeDirectory.resolve(KafkaClusterNodeMain.SETTINGS), StandardCharsets.UTF_8)) {
        properties.store(w, "Written by tandem-testkit's KafkaCluster");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the settings of a Kafka node", e);
    }
  }

  private synchronized void stop() {
    for (JvmProcess p : running.values()) {
      try {
        p.kill(); // no need to shut down cleanly: the data goes
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    running.clear();
    TemporaryDirectory.delete(directory);
  }

  /** Kills every node and deletes the cluster's data. Safe to call more than once. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop();
    exitCleanup.cancel();
  }

  @Override
  public String toString() {
    return nodes.size() + "-node Kafka cluster at " + bootstrapServers;
  }
}
