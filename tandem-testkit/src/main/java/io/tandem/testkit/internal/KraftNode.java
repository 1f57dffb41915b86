package io.tandem.testkit.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * One Kafka node in KRaft mode, broker and controller combined, running in this JVM from the Kafka
 * jars. It keeps its ports and log directory across {@link #stop()} and {@link #start()}, so a
 * restart finds the data written before it.
 *
 * <p>Uses Kafka's internal Scala classes ({@code kafka.tools.StorageTool}, {@code
 * kafka.server.KafkaRaftServer}); check them when upgrading Kafka.
 */
public final class KraftNode {

  private static final int NODE_ID = 1;

  private final Path directory;
  private final Map<String, String> config;
  private final String bootstrapServers;
  private final Duration startupTimeout;
  private final String tlsBootstrapServers;
  private final SelfSignedTls tls;
  private final String saslBootstrapServers;
  private final SaslUser saslUser;
  private KafkaRaftServer server;

  private KraftNode(
      Path directory,
      Map<String, String> config,
      String bootstrapServers,
      Duration timeout,
      String tlsBootstrapServers,
      SelfSignedTls tls,
      String saslBootstrapServers,
      SaslUser saslUser) {
    this.directory = directory;
    this.config = config;
    this.bootstrapServers = bootstrapServers;
    this.startupTimeout = timeout;
    this.tlsBootstrapServers = tlsBootstrapServers;
    this.tls = tls;
    this.saslBootstrapServers = saslBootstrapServers;
    this.saslUser = saslUser;
  }

  /**
   * Picks free ports, creates a temporary directory and formats its log directory as a new
   * single-node cluster; the node is not started yet.
   *
   * @param overrides broker settings that replace the defaults chosen here
   * @param withTls whether the node also listens with TLS, on a certificate made here
   * @param saslUser when not null, the node also listens with SASL_PLAINTEXT (mechanisms PLAIN,
   *     SCRAM-SHA-256 and SCRAM-SHA-512), knowing this one user
   */
  public static KraftNode format(
      int defaultPartitions,
      Map<String, String> overrides,
      Duration startupTimeout,
      boolean withTls,
      SaslUser saslUser) {
    boolean withSasl = saslUser != null;
    int[] ports = FreePorts.allocate(2 + (withTls ? 1 : 0) + (withSasl ? 1 : 0));
    String listener = "127.0.0.1:" + ports[0];
    String controller = "127.0.0.1:" + ports[1];
    String tlsListener = withTls ? "127.0.0.1:" + ports[2] : null;
    String saslListener = withSasl ? "127.0.0.1:" + ports[withTls ? 3 : 2] : null;
    Path directory = TemporaryDirectory.create("tandem-kafka-");
    SelfSignedTls tls = null;
    if (withTls) {
      try {
        tls = SelfSignedTls.create(directory);
      } catch (RuntimeException e) {
        TemporaryDirectory.delete(directory);
        throw e;
      }
    }
    Map<String, String> config = new LinkedHashMap<>();
    config.put("process.roles", "broker,controller");
    config.put("node.id", String.valueOf(NODE_ID));
    config.put("controller.quorum.voters", NODE_ID + "@" + controller);
    String ssl =
        (withTls ? ",SSL://" + tlsListener : "")
            + (withSasl ? ",SASL_PLAINTEXT://" + saslListener : "");
    config.put("listeners", "PLAINTEXT://" + listener + ",CONTROLLER://" + controller + ssl);
    config.put("advertised.listeners", "PLAINTEXT://" + listener + ssl);
    config.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
            + (withTls ? ",SSL:SSL" : "")
            + (withSasl ? ",SASL_PLAINTEXT:SASL_PLAINTEXT" : ""));
    if (withSasl) {
      config.putAll(saslUser.listenerConfig("sasl_plaintext"));
    }
    if (withTls) {
      config.put("listener.name.ssl.ssl.keystore.location", tls.keystore().toString());
      config.put("listener.name.ssl.ssl.keystore.password", tls.password());
      config.put("listener.name.ssl.ssl.key.password", tls.password());
      config.put("listener.name.ssl.ssl.keystore.type", "PKCS12");
    }
    config.put("controller.listener.names", "CONTROLLER");
    config.put("inter.broker.listener.name", "PLAINTEXT");
    config.put("log.dirs", directory.resolve("data").toString());
    config.putAll(replicationDefaults(defaultPartitions, 1, 1));
    config.putAll(overrides);
    KraftNode node =
        new KraftNode(
            directory, config, listener, startupTimeout, tlsListener, tls, saslListener, saslUser);
    try {
      node.formatStorage(Uuid.randomUuid().toString());
    } catch (RuntimeException e) {
      TemporaryDirectory.delete(directory);
      throw e;
    }
    return node;
  }

  /**
   * The settings every node of ours shares, for a cluster whose topics have {@code replication}
   * replicas and accept a write once {@code minInsync} have it.
   */
  public static Map<String, String> replicationDefaults(
      int defaultPartitions, int replication, int minInsync) {
    Map<String, String> config = new LinkedHashMap<>();
    String rf = String.valueOf(replication);
    String isr = String.valueOf(minInsync);
    config.put("num.partitions", String.valueOf(defaultPartitions));
    config.put("auto.create.topics.enable", "true");
    config.put("default.replication.factor", rf);
    config.put("min.insync.replicas", isr);
    config.put("offsets.topic.replication.factor", rf);
    config.put("offsets.topic.num.partitions", "5");
    config.put("transaction.state.log.replication.factor", rf);
    config.put("transaction.state.log.min.isr", isr);
    config.put("transaction.state.log.num.partitions", "5");
    config.put("share.coordinator.state.topic.replication.factor", rf);
    config.put("share.coordinator.state.topic.min.isr", isr);
    config.put("group.initial.rebalance.delay.ms", "0");
    // The log cleaner allocates this buffer on the heap at startup; Kafka's default is 128 MiB.
    config.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
    config.put("num.network.threads", "2");
    config.put("num.io.threads", "4");
    return config;
  }

  /**
   * A node of a cluster of several: {@code config} is complete (node id, voters, listeners, log
   * directory under {@code directory}/data). Formats the log directory with {@code clusterId}
   * unless an earlier run of this node did; the node is not started yet.
   */
  public static KraftNode member(
      Path directory,
      Map<String, String> config,
      String bootstrapServers,
      String clusterId,
      Duration startupTimeout) {
    KraftNode node =
        new KraftNode(directory, config, bootstrapServers, startupTimeout, null, null, null, null);
    if (!Files.exists(directory.resolve("data").resolve("meta.properties"))) {
      node.formatStorage(clusterId);
    }
    return node;
  }

  /** Returns the {@code host:port} clients connect to. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Returns the {@code host:port} of the TLS listener, or null without one. */
  public String tlsBootstrapServers() {
    return tlsBootstrapServers;
  }

  /** Returns the TLS listener's certificate and stores, or null without one. */
  public SelfSignedTls tls() {
    return tls;
  }

  /** Returns the {@code host:port} of the SASL listener, or null without one. */
  public String saslBootstrapServers() {
    return saslBootstrapServers;
  }

  /** Returns the user the SASL listener knows, or null without one. */
  public SaslUser saslUser() {
    return saslUser;
  }

  /** Returns the directory holding the configuration and the log directory. */
  public Path directory() {
    return directory;
  }

  /** Starts the node, if stopped, and waits until it answers clients. */
  public synchronized void start() {
    if (server != null) {
      return;
    }
    KafkaRaftServer starting = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
    try {
      starting.startup();
      server = starting;
      ClusterReadiness.await(bootstrapServers, startupTimeout);
    } catch (RuntimeException e) {
      server = null;
      try {
        shutdown(starting);
      } catch (RuntimeException shutdownFailure) {
        e.addSuppressed(shutdownFailure);
      }
      throw new IllegalStateException(
          "Embedded Kafka broker at "
              + bootstrapServers
              + " did not start: "
              + e.getMessage()
              + ". Its log directory is "
              + directory
              + "; the broker logs through SLF4J under 'kafka' and 'org.apache.kafka'.",
          e);
    }
  }

  /** Stops the node, if running, and waits until it has released its ports and files. */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    KafkaRaftServer stopping = server;
    server = null;
    shutdown(stopping);
  }

  /** Returns whether the node is running. */
  public synchronized boolean running() {
    return server != null;
  }

  /** Stops the node and deletes its directory. */
  public synchronized void destroy() {
    try {
      stop();
    } finally {
      TemporaryDirectory.delete(directory);
    }
  }

  private static void shutdown(KafkaRaftServer server) {
    server.shutdown();
    server.awaitShutdown();
  }

  private void formatStorage(String clusterId) {
    Path configFile = directory.resolve("server.properties");
    Properties properties = new Properties();
    properties.putAll(config);
    try (Writer writer = Files.newBufferedWriter(configFile, StandardCharsets.UTF_8)) {
      properties.store(writer, "Written by tandem-testkit to format the KRaft log directory");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write Kafka configuration " + configFile, e);
    }
    java.util.List<String> arguments =
        new java.util.ArrayList<>(
            java.util.List.of(
                "format", "--cluster-id", clusterId, "--config", configFile.toString()));
    if (saslUser != null) {
      arguments.addAll(saslUser.scramFormatArguments()); // SCRAM credentials live in metadata
    }
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    int exitCode;
    try (PrintStream printer = new PrintStream(output, true, StandardCharsets.UTF_8)) {
      exitCode = StorageTool.execute(arguments.toArray(String[]::new), printer);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Cannot format the Kafka log directory in " + directory + ": " + e.getMessage(), e);
    }
    if (exitCode != 0) {
      throw new IllegalStateException(
          "Formatting the Kafka log directory in "
              + directory
              + " failed with exit code "
              + exitCode
              + ": "
              + output.toString(StandardCharsets.UTF_8).strip());
    }
  }
}
