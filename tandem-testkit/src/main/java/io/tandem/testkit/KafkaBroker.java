package io.tandem.testkit;

import io.tandem.testkit.internal.ClusterReadiness;
import io.tandem.testkit.internal.ExitCleanup;
import io.tandem.testkit.internal.KraftNode;
import io.tandem.testkit.internal.SaslUser;
import io.tandem.testkit.internal.SelfSignedTls;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * A Kafka cluster for tests: either embedded (a single-node KRaft broker, controller included,
 * running inside this JVM from the Kafka jars, no Docker) or external (already running, only
 * connected to).
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.embedded().defaultPartitions(3).start()) {
 *   kafka.createTopic("orders", 3);
 *   // produce and consume with bootstrap.servers = kafka.bootstrapServers()
 *   kafka.stop();    // broker outage: clients see disconnects
 *   kafka.restart(); // back on the same port, with the records written before
 * }
 * }</pre>
 *
 * <p>An embedded broker listens on free loopback ports, keeps its log in a temporary directory and
 * is stopped, and the directory deleted, by {@link #close()} or at JVM exit. It is set up for one
 * node: replication factors and minimum in-sync replicas of 1, topics created automatically with
 * {@link Builder#defaultPartitions(int)} partitions, no initial rebalance delay. It takes a few
 * seconds to start. Usually a test takes the shared broker of {@link TestInfrastructure#kafka()}
 * rather than starting its own.
 *
 * <p>Kafka's broker threads are not daemon threads: a program whose {@code main} returns while an
 * embedded broker runs does not end until it calls {@link #close()} or {@link System#exit(int)}
 * (which stops the broker from a shutdown hook). Test runners call {@code System.exit} themselves.
 *
 * <p>Thread safety: all methods may be called from any thread; {@link #stop()}, {@link #restart()}
 * and {@link #close()} are serialized.
 */
public final class KafkaBroker implements AutoCloseable {

  /** Partitions of automatically created topics, unless {@link Builder#defaultPartitions(int)}. */
  public static final int DEFAULT_PARTITIONS = 3;

  /** How long starting or restarting an embedded broker may take by default. */
  public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(60);

  /** How long {@link #createTopic(String, int)} and connection checks wait for the cluster. */
  public static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration LEADER_POLL_INTERVAL = Duration.ofMillis(50);

  private final String bootstrapServers;
  private final Map<String, String> clientProperties;
  private final KraftNode node;
  private final ExitCleanup.Registration exitCleanup;
  private boolean closed;

  private KafkaBroker(
      String bootstrapServers,
      Map<String, String> clientProperties,
      KraftNode node,
      ExitCleanup.Registration exitCleanup) {
    this.bootstrapServers = bootstrapServers;
    this.clientProperties = Map.copyOf(clientProperties);
    this.node = node;
    this.exitCleanup = exitCleanup;
  }

  /** Returns a builder for an embedded broker; nothing starts until {@link Builder#start()}. */
  public static Builder embedded() {
    return new Builder();
  }

  /**
   * Returns a handle on an already running cluster, after checking that it answers. It starts and
   * stops nothing; {@link #stop()} and {@link #restart()} are not supported.
   *
   * @param bootstrapServers for example {@code 127.0.0.1:9092}
   * @throws IllegalArgumentException if {@code bootstrapServers} is blank
   * @throws IllegalStateException if the cluster does not answer within {@link #OPERATION_TIMEOUT}
   */
  public static KafkaBroker external(String bootstrapServers) {
    return external(bootstrapServers, Map.of());
  }

  /**
   * Returns a handle on an already running cluster reached with client settings {@code
   * clientProperties} (TLS, SASL: {@code security.protocol}, {@code sasl.jaas.config}, ...), after
   * checking with them that it answers. {@link #clientProperties()} returns them, for the clients
   * of whoever uses this handle; {@link #createTopic} uses them. Their values are never printed.
   *
   * @throws IllegalArgumentException if {@code bootstrapServers} is blank
   * @throws IllegalStateException if the cluster does not answer within {@link #OPERATION_TIMEOUT}
   */
  public static KafkaBroker external(
      String bootstrapServers, Map<String, String> clientProperties) {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException(
          "Kafka bootstrap servers must not be blank, for example '127.0.0.1:9092', was '"
              + bootstrapServers
              + "'");
    }
    ClusterReadiness.await(bootstrapServers, clientProperties, OPERATION_TIMEOUT);
    return new KafkaBroker(bootstrapServers, clientProperties, null, null);
  }

  /** Returns the value for the clients' {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * Returns the client settings that reach {@link #bootstrapServers()} beside the servers
   * themselves: those given to {@link #external(String, Map)}, none for an embedded broker (its
   * {@link #bootstrapServers()} listener is plaintext).
   */
  public Map<String, String> clientProperties() {
    return clientProperties;
  }

  /**
   * Returns the {@code host:port} of the SASL_PLAINTEXT listener of a broker built with {@link
   * Builder#saslListener()}.
   *
   * @throws IllegalStateException if it has none
   */
  public String saslBootstrapServers() {
    requireSasl();
    return node.saslBootstrapServers();
  }

  /** Returns the name of the one user the SASL listener knows. */
  public String saslUser() {
    requireSasl();
    return node.saslUser().name();
  }

  /** Returns the password of {@link #saslUser()}, random per broker. */
  public String saslPassword() {
    requireSasl();
    return node.saslUser().password();
  }

  /**
   * Returns the client settings that log in to {@link #saslBootstrapServers()} as {@link
   * #saslUser()}: {@code security.protocol=SASL_PLAINTEXT}, {@code sasl.mechanism} and {@code
   * sasl.jaas.config}.
   *
   * @param mechanism {@code PLAIN}, {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}
   * @throws IllegalStateException if the broker has no SASL listener
   */
  public Map<String, String> saslClientProperties(String mechanism) {
    requireSasl();
    return SaslUser.clientProperties(mechanism, saslUser(), saslPassword());
  }

  private void requireSasl() {
    if (node == null || node.saslUser() == null) {
      throw new IllegalStateException(
          this + " has no SASL listener: build it with KafkaBroker.embedded().saslListener()");
    }
  }

  /**
   * Returns the {@code host:port} of the TLS listener of a broker built with {@link
   * Builder#tlsListener()}.
   *
   * @throws IllegalStateException if it has none
   */
  public String tlsBootstrapServers() {
    requireTls();
    return node.tlsBootstrapServers();
  }

  /**
   * Returns the client settings that reach {@link #tlsBootstrapServers()}: {@code
   * security.protocol=SSL} and the truststore holding the broker's self-signed certificate ({@code
   * ssl.truststore.location}, {@code ssl.truststore.password}, {@code ssl.truststore.type}).
   *
   * @throws IllegalStateException if the broker has no TLS listener
   */
  public Map<String, String> tlsClientProperties() {
    requireTls();
    SelfSignedTls tls = node.tls();
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("security.protocol", "SSL");
    properties.put("ssl.truststore.location", tls.truststore().toString());
    properties.put("ssl.truststore.password", tls.password());
    properties.put("ssl.truststore.type", "PKCS12");
    return properties;
  }

  private void requireTls() {
    if (node == null || node.tls() == null) {
      throw new IllegalStateException(
          this + " has no TLS listener: build it with KafkaBroker.embedded().tlsListener()");
    }
  }

  /**
   * Returns whether this broker was started by this class (and can be stopped by it). Named {@code
   * isEmbedded} because Java does not allow it beside the static {@link #embedded()}.
   */
  public boolean isEmbedded() {
    return node != null;
  }

  /**
   * Creates a topic with the cluster's default replication factor and waits until every partition
   * has a leader that serves requests. An existing topic is fine, whatever its partition count.
   *
   * @throws IllegalArgumentException if {@code partitions} is less than 1
   * @throws IllegalStateException if the topic cannot be created within {@link #OPERATION_TIMEOUT}
   */
  public void createTopic(String name, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException(
          "Topic " + name + " needs at least 1 partition, was " + partitions);
    }
    long deadline = System.nanoTime() + OPERATION_TIMEOUT.toNanos();
    NewTopic topic = new NewTopic(name, Optional.of(partitions), Optional.empty());
    try (Admin admin =
        Admin.create(
            ClusterReadiness.adminConfig(bootstrapServers, clientProperties, OPERATION_TIMEOUT))) {
      boolean created = true;
      try {
        admin
            .createTopics(List.of(topic))
            .all()
            .get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
        created = false;
      }
      while (!allPartitionsHaveLeaders(admin, name, deadline)) {
        if (remainingMillis(deadline) == 0) {
          throw new TimeoutException("partitions still without a leader");
        }
        Thread.sleep(LEADER_POLL_INTERVAL.toMillis());
      }
      // Metadata can name a leader a moment before it serves requests; a producer's first batch
      // then meets NOT_LEADER_OR_FOLLOWER and, idempotent, may stay stuck on sequence numbers.
      // ListOffsets is answered only by an active leader: wait until every partition answers.
      while (created && !allPartitionsServeOffsets(admin, name, partitions, deadline)) {
        if (remainingMillis(deadline) == 0) {
          throw new TimeoutException("partitions do not serve requests yet");
        }
        Thread.sleep(LEADER_POLL_INTERVAL.toMillis());
      }
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException(
          "Cannot create topic " + name + " on Kafka at " + bootstrapServers + ": " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while creating topic " + name, e);
    }
  }

  private static boolean allPartitionsServeOffsets(
      Admin admin, String topic, int partitions, long deadline) throws InterruptedException {
    java.util.Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec>
        request = new java.util.HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(
          new org.apache.kafka.common.TopicPartition(topic, p),
          org.apache.kafka.clients.admin.OffsetSpec.latest());
    }
    try {
      admin
          .listOffsets(request)
          .all()
          .get(Math.max(1, Math.min(2000, remainingMillis(deadline))), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  /**
   * Stops the embedded broker, keeping its ports reserved in its configuration and its data on
   * disk; clients see the broker as down until {@link #restart()}. Does nothing if it is stopped.
   *
   * @throws UnsupportedOperationException for an external cluster
   * @throws IllegalStateException once closed
   */
  public synchronized void stop() {
    requireEmbeddedAndOpen("stop");
    node.stop();
  }

  /**
   * Stops the embedded broker if it runs, then starts it again on the same ports with the same log
   * directory, so records written before are still there; returns once it answers clients.
   *
   * @throws UnsupportedOperationException for an external cluster
   * @throws IllegalStateException once closed, or if the broker does not come back within the
   *     startup timeout
   */
  public synchronized void restart() {
    requireEmbeddedAndOpen("restart");
    node.stop();
    node.start();
  }

  /**
   * Stops an embedded broker and deletes its log directory; does nothing to an external cluster.
   * Safe to call more than once.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (node != null) {
      node.destroy();
      exitCleanup.cancel();
    }
  }

  @Override
  public String toString() {
    return (isEmbedded() ? "embedded" : "external") + " Kafka at " + bootstrapServers;
  }

  private void requireEmbeddedAndOpen(String operation) {
    if (node == null) {
      throw new UnsupportedOperationException(
          "Cannot "
              + operation
              + " the external Kafka at "
              + bootstrapServers
              + ": only an embedded broker can be stopped and restarted");
    }
    if (closed) {
      throw new IllegalStateException(
          "Cannot " + operation + " the Kafka broker at " + bootstrapServers + ": it is closed");
    }
  }

  private static boolean allPartitionsHaveLeaders(Admin admin, String name, long deadline)
      throws InterruptedException, ExecutionException, TimeoutException {
    TopicDescription description;
    try {
      description =
          admin
              .describeTopics(List.of(name))
              .allTopicNames()
              .get(remainingMillis(deadline), TimeUnit.MILLISECONDS)
              .get(name);
    } catch (ExecutionException e) {
      // Just created: the broker may not have applied the new metadata yet.
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return false;
      }
      throw e;
    }
    return description.partitions().stream()
        .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
  }

  private static long remainingMillis(long deadline) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  /** Configures an embedded broker. Not thread-safe; build in one thread. */
  public static final class Builder {
    private int defaultPartitions = DEFAULT_PARTITIONS;
    private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
    private final Map<String, String> brokerConfig = new LinkedHashMap<>();
    private boolean tlsListener;
    private boolean saslListener;

    private Builder() {}

    /**
     * Adds a listener that speaks SASL_PLAINTEXT with the mechanisms PLAIN, SCRAM-SHA-256 and
     * SCRAM-SHA-512, knowing one user, {@code tandem}, with a random password (its SCRAM
     * credentials are written when the log directory is formatted, as {@code kafka-storage format
     * --add-scram} does). Clients reach it at {@link KafkaBroker#saslBootstrapServers()} with
     * {@link KafkaBroker#saslClientProperties(String)}; the plaintext listener stays.
     */
    public Builder saslListener() {
      this.saslListener = true;
      return this;
    }

    /**
     * Adds a second listener that speaks TLS, on a self-signed certificate for {@code 127.0.0.1}
     * made at start (a PKCS12 keystore and truststore in the broker's temporary directory). Clients
     * reach it at {@link KafkaBroker#tlsBootstrapServers()} with {@link
     * KafkaBroker#tlsClientProperties()}; the plaintext listener stays.
     */
    public Builder tlsListener() {
      this.tlsListener = true;
      return this;
    }

    /**
     * Partitions of topics created automatically on first use; default {@value
     * KafkaBroker#DEFAULT_PARTITIONS}.
     */
    public Builder defaultPartitions(int defaultPartitions) {
      if (defaultPartitions < 1) {
        throw new IllegalArgumentException(
            "defaultPartitions must be at least 1, was " + defaultPartitions);
      }
      this.defaultPartitions = defaultPartitions;
      return this;
    }

    /** How long a start or restart may take before it fails; default 60 seconds. */
    public Builder startupTimeout(Duration startupTimeout) {
      Objects.requireNonNull(startupTimeout, "startupTimeout");
      if (startupTimeout.isNegative() || startupTimeout.isZero()) {
        throw new IllegalArgumentException(
            "startupTimeout must be positive, was " + startupTimeout);
      }
      this.startupTimeout = startupTimeout;
      return this;
    }

    /**
     * Sets a broker setting, replacing the one chosen by this kit, for example {@code
     * brokerConfig("transaction.max.timeout.ms", "60000")}. Listeners, node id and log directory
     * are chosen by the kit and should not be overridden.
     */
    public Builder brokerConfig(String name, String value) {
      if (name == null || name.isBlank() || value == null) {
        throw new IllegalArgumentException(
            "Kafka broker setting needs a name and a value, was " + name + "=" + value);
      }
      brokerConfig.put(name, value);
      return this;
    }

    /**
     * Formats a new log directory in a temporary folder and starts the broker on free loopback
     * ports; returns once it answers an admin client (typically after about 4 seconds).
     *
     * @throws IllegalStateException if it does not start within the startup timeout
     */
    public KafkaBroker start() {
      KraftNode node =
          KraftNode.format(
              defaultPartitions,
              brokerConfig,
              startupTimeout,
              tlsListener,
              saslListener ? SaslUser.random("tandem") : null);
      try {
        node.start();
      } catch (RuntimeException e) {
        node.destroy();
        throw e;
      }
      ExitCleanup.Registration exitCleanup =
          ExitCleanup.register("stop embedded Kafka at " + node.bootstrapServers(), node::destroy);
      return new KafkaBroker(node.bootstrapServers(), Map.of(), node, exitCleanup);
    }
  }
}
