package io.tandem.drill;

import io.tandem.core.Redaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * How drills run. Built with {@link #builder(Path)}; immutable and thread-safe.
 *
 * <pre>{@code
 * DrillSettings settings =
 *     DrillSettings.builder(Path.of("/tmp/drills")).events(100_000).outage(Duration.ofSeconds(10)).build();
 * }</pre>
 *
 * <p>Defaults: {@value #DEFAULT_EVENTS} events, a 30 s outage, a 120 s timeout, protection on, an
 * embedded PostgreSQL and Kafka broker, the polling relay, changes per commit chosen by the event
 * count ({@link #changesPerCommit()}).
 */
public final class DrillSettings {

  public static final String POLLING_RELAY = "polling";
  public static final String CDC_RELAY = "cdc";
  public static final int DEFAULT_EVENTS = 300;
  public static final Duration DEFAULT_OUTAGE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

  /** The most changes the service commits in one transaction (each of the 20 accounts once). */
  public static final int MAX_CHANGES_PER_COMMIT = 20;

  private final int events;
  private final Duration outage;
  private final Duration timeout;
  private final boolean protection;
  private final String jdbcUrl;
  private final String kafkaBootstrap;
  private final Path workDir;
  private final String relay;
  private final Map<String, String> kafkaClient;
  private final int kafkaCluster;
  private final int changesPerCommit;

  private DrillSettings(Builder b) {
    this.events = b.events;
    this.outage = b.outage;
    this.timeout = b.timeout;
    this.protection = b.protection;
    this.jdbcUrl = b.jdbcUrl;
    this.kafkaBootstrap = b.kafkaBootstrap;
    this.workDir = b.workDir;
    this.relay = b.relay;
    this.kafkaClient = b.kafkaClient == null ? Map.of() : Map.copyOf(b.kafkaClient);
    this.kafkaCluster = b.kafkaCluster;
    this.changesPerCommit = b.changesPerCommit;
  }

  /** Settings with the defaults; the processes' logs go to {@code workDir}. */
  public static Builder builder(Path workDir) {
    return new Builder().workDir(workDir);
  }

  /** The default settings, logs in {@code workDir}. */
  public static DrillSettings defaults(Path workDir) {
    return builder(workDir).build();
  }

  /** A builder holding these settings. */
  public Builder toBuilder() {
    return new Builder()
        .events(events)
        .outage(outage)
        .timeout(timeout)
        .protection(protection)
        .jdbcUrl(jdbcUrl)
        .kafkaBootstrap(kafkaBootstrap)
        .workDir(workDir)
        .relay(relay)
        .kafkaClient(kafkaClient)
        .kafkaCluster(kafkaCluster)
        .changesPerCommit(changesPerCommit);
  }

  /** Changes the service commits in each outbox drill (sagas: a tenth of it, at least 20). */
  public int events() {
    return events;
  }

  /** How long the broker is down in {@code broker-outage}. */
  public Duration outage() {
    return outage;
  }

  /** How long a drill waits for the system to settle after its fault. */
  public Duration timeout() {
    return timeout;
  }

  /**
   * {@code false} switches each drill's protection off (inbox bypassed, direct publish after
   * commit, no ordering guard, no resuming orchestrator, asynchronous commit), to show that the
   * checker sees what the protection guards against: every drill must then FAIL.
   */
  public boolean protection() {
    return protection;
  }

  /** A PostgreSQL server to use (a user with CREATEDB), or null for an embedded one. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** A Kafka cluster to use, or null for an embedded broker. */
  public String kafkaBootstrap() {
    return kafkaBootstrap;
  }

  /** Where the processes' logs go. */
  public Path workDir() {
    return workDir;
  }

  /**
   * {@value #POLLING_RELAY} or {@value #CDC_RELAY}: which relay publishes the outbox in the drills
   * that have a form for each; the others report NOT_AVAILABLE with the CDC relay.
   */
  public String relay() {
    return relay;
  }

  /** Client settings (TLS, SASL) every Kafka client of the drills gets; none when embedded. */
  public Map<String, String> kafkaClient() {
    return kafkaClient;
  }

  /** 0 for one broker; 3 to 5 for an embedded cluster of that many nodes every drill runs on. */
  public int kafkaCluster() {
    return kafkaCluster;
  }

  /**
   * Changes the service commits per transaction. Unless set, one in the short forms (up to 1,999
   * events) and one per thousand events in long runs, at most {@value #MAX_CHANGES_PER_COMMIT}:
   * each change is still in the database with its event or neither is, and a fault "after a commit"
   * still strikes between two commits, while a 100,000-event run does not spend its hour on
   * commits.
   */
  public int changesPerCommit() {
    return changesPerCommit > 0
        ? changesPerCommit
        : Math.max(1, Math.min(MAX_CHANGES_PER_COMMIT, events / 1000));
  }

  /** Whether the drills' relay is the CDC relay. */
  public boolean cdc() {
    return CDC_RELAY.equals(relay);
  }

  /** These settings with {@code n} events. */
  public DrillSettings withEvents(int n) {
    return toBuilder().events(n).build();
  }

  /** These settings with a broker outage of {@code d}. */
  public DrillSettings withOutage(Duration d) {
    return toBuilder().outage(d).build();
  }

  /** These settings with protection on or off. */
  public DrillSettings withProtection(boolean on) {
    return toBuilder().protection(on).build();
  }

  /** These settings with relay {@code r}. */
  public DrillSettings withRelay(String r) {
    return toBuilder().relay(r).build();
  }

  /** These settings on the given servers (null: embedded). */
  public DrillSettings withServers(String jdbc, String kafka) {
    return toBuilder().jdbcUrl(jdbc).kafkaBootstrap(kafka).build();
  }

  /** These settings with Kafka client settings {@code client} (TLS, SASL). */
  public DrillSettings withKafkaClient(Map<String, String> client) {
    return toBuilder().kafkaClient(client).build();
  }

  /** Settings whose drills run on an embedded Kafka cluster of {@code nodes} (0: one broker). */
  public DrillSettings withKafkaCluster(int nodes) {
    return toBuilder().kafkaCluster(nodes).build();
  }

  @Override
  public String toString() {
    return "DrillSettings[events=" + events + ", relay=" + relay + "]"; // no URL, no secret
  }

  /** Builds {@link DrillSettings}; {@link #build()} checks every value. Not thread-safe. */
  public static final class Builder {
    private int events = DEFAULT_EVENTS;
    private Duration outage = DEFAULT_OUTAGE;
    private Duration timeout = DEFAULT_TIMEOUT;
    private boolean protection = true;
    private String jdbcUrl;
    private String kafkaBootstrap;
    private Path workDir;
    private String relay = POLLING_RELAY;
    private Map<String, String> kafkaClient = Map.of();
    private int kafkaCluster;
    private int changesPerCommit;

    private Builder() {}

    /** Changes per outbox drill, 20 to 10,000,000; default {@value #DEFAULT_EVENTS}. */
    public Builder events(int events) {
      this.events = events;
      return this;
    }

    /** How long {@code broker-outage} keeps the broker down; default 30 s. */
    public Builder outage(Duration outage) {
      this.outage = outage;
      return this;
    }

    /** How long a drill waits to settle after its fault, at least 10 s; default 120 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** Whether the drills' protection is on; default true. */
    public Builder protection(boolean protection) {
      this.protection = protection;
      return this;
    }

    /** A {@code jdbc:postgresql:} URL, or null (default) for an embedded server. */
    public Builder jdbcUrl(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
      return this;
    }

    /** Kafka bootstrap servers, or null (default) for an embedded broker. */
    public Builder kafkaBootstrap(String kafkaBootstrap) {
      this.kafkaBootstrap = kafkaBootstrap;
      return this;
    }

    /** Where the processes' logs go; required. */
    public Builder workDir(Path workDir) {
      this.workDir = workDir;
      return this;
    }

    /** {@value #POLLING_RELAY} (default) or {@value #CDC_RELAY}. */
    public Builder relay(String relay) {
      this.relay = relay;
      return this;
    }

    /** Kafka client settings (TLS, SASL) for the given cluster; default none. */
    public Builder kafkaClient(Map<String, String> kafkaClient) {
      this.kafkaClient = kafkaClient;
      return this;
    }

    /** 0 (default) for one broker, or 3 to 5 embedded cluster nodes. */
    public Builder kafkaCluster(int kafkaCluster) {
      this.kafkaCluster = kafkaCluster;
      return this;
    }

    /**
     * Changes per service transaction, 1 to {@value #MAX_CHANGES_PER_COMMIT}; 0 (default) chooses
     * by the event count ({@link DrillSettings#changesPerCommit()}).
     */
    public Builder changesPerCommit(int changesPerCommit) {
      this.changesPerCommit = changesPerCommit;
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException naming the option and the bad value
     */
    public DrillSettings build() {
      if (events < 20 || events > 10_000_000) {
        throw new IllegalArgumentException(
            "--events must be between 20 and 10000000, was " + events);
      }
      if (outage == null || outage.isNegative() || outage.isZero()) {
        throw new IllegalArgumentException("--outage must be a positive duration, was " + outage);
      }
      if (timeout == null || timeout.toSeconds() < 10) {
        throw new IllegalArgumentException("--timeout must be at least 10 s, was " + timeout);
      }
      if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql:")) {
        throw new IllegalArgumentException(
            "--jdbc-url must be a jdbc:postgresql: URL (the drills' service SQL is PostgreSQL's),"
                + " was "
                + Redaction.redact(jdbcUrl));
      }
      if (workDir == null) {
        throw new IllegalArgumentException("workDir must not be null");
      }
      if (!POLLING_RELAY.equals(relay) && !CDC_RELAY.equals(relay)) {
        throw new IllegalArgumentException("--relay must be polling or cdc, was " + relay);
      }
      if (kafkaCluster != 0 && (kafkaCluster < 3 || kafkaCluster > 5)) {
        throw new IllegalArgumentException(
            "--kafka-cluster must be between 3 and 5 nodes (or left out for one broker), was "
                + kafkaCluster);
      }
      if (kafkaCluster != 0 && kafkaBootstrap != null) {
        throw new IllegalArgumentException(
            "--kafka-cluster starts a cluster of its own: leave out --kafka-bootstrap, or leave out"
                + " --kafka-cluster to run on the given Kafka");
      }
      if (changesPerCommit < 0 || changesPerCommit > MAX_CHANGES_PER_COMMIT) {
        throw new IllegalArgumentException(
            "changesPerCommit must be between 0 (automatic) and "
                + MAX_CHANGES_PER_COMMIT
                + ", was "
                + changesPerCommit);
      }
      return new DrillSettings(this);
    }
  }
}
