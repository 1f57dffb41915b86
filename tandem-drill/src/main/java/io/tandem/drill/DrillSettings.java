package io.tandem.drill;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * How drills run.
 *
 * @param events changes the service commits in each outbox drill (sagas: a tenth of it, at least
 *     20)
 * @param outage how long the broker is down in {@code broker-outage}
 * @param timeout how long a drill waits for the system to settle after its fault
 * @param protection {@code false} switches each drill's protection off (inbox bypassed, direct
 *     publish after commit, no ordering guard, no resuming orchestrator, asynchronous commit), to
 *     show that the checker sees what the protection guards against: every drill must then FAIL
 * @param jdbcUrl a PostgreSQL server to use (a user with CREATEDB), or null for an embedded one
 * @param kafkaBootstrap a Kafka cluster to use, or null for an embedded broker
 * @param workDir where the processes' logs go
 * @param relay {@value #POLLING_RELAY} or {@value #CDC_RELAY}: which relay publishes the outbox in
 *     the drills that have a form for each ({@code relay-crash-after-ack}); the others report
 *     NOT_AVAILABLE with the CDC relay
 * @param kafkaClient client settings (TLS, SASL) every Kafka client of the drills gets for the
 *     given cluster, its role processes through their environment; none for an embedded broker
 * @param kafkaCluster 0 for one broker; 3 to 5 for a cluster of that many embedded nodes
 *     (replication 3, {@code min.insync.replicas} 2) that every drill runs on
 */
public record DrillSettings(
    int events,
    Duration outage,
    Duration timeout,
    boolean protection,
    String jdbcUrl,
    String kafkaBootstrap,
    Path workDir,
    String relay,
    Map<String, String> kafkaClient,
    int kafkaCluster) {

  public static final String POLLING_RELAY = "polling";
  public static final String CDC_RELAY = "cdc";
  public static final int DEFAULT_EVENTS = 300;
  public static final Duration DEFAULT_OUTAGE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

  public DrillSettings {
    if (events < 20 || events > 10_000_000) {
      throw new IllegalArgumentException("--events must be between 20 and 10000000, was " + events);
    }
    if (outage == null || outage.isNegative() || outage.isZero()) {
      throw new IllegalArgumentException("--outage must be a positive duration, was " + outage);
    }
    if (timeout == null || timeout.toSeconds() < 10) {
      throw new IllegalArgumentException("--timeout must be at least 10 s, was " + timeout);
    }
    if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "--jdbc-url must be a jdbc:postgresql: URL (the drills' service SQL is PostgreSQL's), was "
              + io.tandem.core.Redaction.redact(jdbcUrl));
    }
    if (workDir == null) {
      throw new IllegalArgumentException("workDir must not be null");
    }
    if (!POLLING_RELAY.equals(relay) && !CDC_RELAY.equals(relay)) {
      throw new IllegalArgumentException("--relay must be polling or cdc, was " + relay);
    }
    kafkaClient = kafkaClient == null ? Map.of() : Map.copyOf(kafkaClient);
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
  }

  /** Settings without Kafka client settings. */
  public DrillSettings(
      int events,
      Duration outage,
      Duration timeout,
      boolean protection,
      String jdbcUrl,
      String kafkaBootstrap,
      Path workDir,
      String relay) {
    this(events, outage, timeout, protection, jdbcUrl, kafkaBootstrap, workDir, relay, Map.of(), 0);
  }

  /** These settings with Kafka client settings {@code client} (TLS, SASL). */
  public DrillSettings withKafkaClient(Map<String, String> client) {
    return new DrillSettings(
        events,
        outage,
        timeout,
        protection,
        jdbcUrl,
        kafkaBootstrap,
        workDir,
        relay,
        client,
        kafkaCluster);
  }

  /** Settings whose drills run on an embedded Kafka cluster of {@code nodes} (0: one broker). */
  public DrillSettings withKafkaCluster(int nodes) {
    return new DrillSettings(
        events,
        outage,
        timeout,
        protection,
        jdbcUrl,
        kafkaBootstrap,
        workDir,
        relay,
        kafkaClient,
        nodes);
  }

  @Override
  public String toString() {
    return "DrillSettings[events=" + events + ", relay=" + relay + "]"; // no URL, no secret
  }

  /** Settings with the polling relay. */
  public DrillSettings(
      int events,
      Duration outage,
      Duration timeout,
      boolean protection,
      String jdbcUrl,
      String kafkaBootstrap,
      Path workDir) {
    this(events, outage, timeout, protection, jdbcUrl, kafkaBootstrap, workDir, POLLING_RELAY);
  }

  /** Whether the drills' relay is the CDC relay. */
  public boolean cdc() {
    return CDC_RELAY.equals(relay);
  }

  public static DrillSettings defaults(Path workDir) {
    return new DrillSettings(
        DEFAULT_EVENTS, DEFAULT_OUTAGE, DEFAULT_TIMEOUT, true, null, null, workDir, POLLING_RELAY);
  }

  public DrillSettings withEvents(int n) {
    return new DrillSettings(
        n,
        outage,
        timeout,
        protection,
        jdbcUrl,
        kafkaBootstrap,
        workDir,
        relay,
        kafkaClient,
        kafkaCluster);
  }

  public DrillSettings withOutage(Duration d) {
    return new DrillSettings(
        events,
        d,
        timeout,
        protection,
        jdbcUrl,
        kafkaBootstrap,
        workDir,
        relay,
        kafkaClient,
        kafkaCluster);
  }

  public DrillSettings withProtection(boolean on) {
    return new DrillSettings(
        events,
        outage,
        timeout,
        on,
        jdbcUrl,
        kafkaBootstrap,
        workDir,
        relay,
        kafkaClient,
        kafkaCluster);
  }

  public DrillSettings withRelay(String r) {
    return new DrillSettings(
        events,
        outage,
        timeout,
        protection,
        jdbcUrl,
        kafkaBootstrap,
        workDir,
        r,
        kafkaClient,
        kafkaCluster);
  }

  public DrillSettings withServers(String jdbc, String kafka) {
    return new DrillSettings(
        events,
        outage,
        timeout,
        protection,
        jdbc,
        kafka,
        workDir,
        relay,
        kafkaClient,
        kafkaCluster);
  }
}
