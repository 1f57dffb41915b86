package io.tandem.spring;

import io.tandem.outbox.OutboxRelay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Tandem's settings under the prefix {@code tandem}, as the Spring Boot starters bind them. Plain
 * getters and setters, with Tandem's defaults; {@link #validate} checks them the way Tandem's
 * builders do, so a bad value fails the application's start naming the property and the value.
 */
public class TandemProperties implements Validator {
  /**
   * Whether to apply Tandem's schema migrations (own history table) when the application starts.
   */
  private boolean migrate = true;

  private final Relay relay = new Relay();
  private final Kafka kafka = new Kafka();
  private final Health health = new Health();
  private final Metrics metrics = new Metrics();

  public boolean isMigrate() {
    return migrate;
  }

  public void setMigrate(boolean migrate) {
    this.migrate = migrate;
  }

  public Relay getRelay() {
    return relay;
  }

  public Kafka getKafka() {
    return kafka;
  }

  public Health getHealth() {
    return health;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  /** The polling relay run inside the application ({@code tandem.relay.*}). */
  public static class Relay {
    /** Whether this application runs a relay; it needs a transport (tandem.kafka.*). */
    private boolean enabled = true;

    /** This relay instance's unique name; default host, process id and a random suffix. */
    private String relayId;

    /** Events read per cycle, 1 to 10000. */
    private int batchSize = OutboxRelay.DEFAULT_BATCH_SIZE;

    /** How long a partition lease lasts; must exceed publish-timeout + heartbeat-interval. */
    private Duration leaseDuration = Duration.ofSeconds(OutboxRelay.DEFAULT_LEASE_SECONDS);

    /** How often the relay heartbeats, renews its leases and rebalances. */
    private Duration heartbeatInterval = Duration.ofSeconds(OutboxRelay.DEFAULT_HEARTBEAT_SECONDS);

    /** How long to wait for the broker's acknowledgements of one batch. */
    private Duration publishTimeout =
        Duration.ofSeconds(OutboxRelay.DEFAULT_PUBLISH_TIMEOUT_SECONDS);

    /** The fallback poll of an idle relay (PostgreSQL also wakes it on each insert). */
    private Duration pollInterval = Duration.ofMillis(OutboxRelay.DEFAULT_POLL_INTERVAL_MILLIS);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getRelayId() {
      return relayId;
    }

    public void setRelayId(String relayId) {
      this.relayId = relayId;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public Duration getLeaseDuration() {
      return leaseDuration;
    }

    public void setLeaseDuration(Duration leaseDuration) {
      this.leaseDuration = leaseDuration;
    }

    public Duration getHeartbeatInterval() {
      return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getPublishTimeout() {
      return publishTimeout;
    }

    public void setPublishTimeout(Duration publishTimeout) {
      this.publishTimeout = publishTimeout;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    /** A relay builder with these settings (data source and transport still to be set). */
    public OutboxRelay.Builder toBuilder() {
      OutboxRelay.Builder b =
          OutboxRelay.builder()
              .batchSize(batchSize)
              .leaseDuration(leaseDuration)
              .heartbeatInterval(heartbeatInterval)
              .publishTimeout(publishTimeout)
              .pollInterval(pollInterval);
      if (relayId != null) {
        b.relayId(relayId);
      }
      return b;
    }
  }

  /**
   * The Kafka transport of the relay ({@code tandem.kafka.*}), used when tandem-kafka is present.
   */
  public static class Kafka {
    /** Kafka's bootstrap servers, e.g. localhost:9092; the relay needs it. */
    private String bootstrapServers;

    /** The CloudEvents source of published events; default /tandem/ + spring.application.name. */
    private String source;

    /** Topic prefix: an event of aggregate type Order goes to topic prefix + "order". */
    private String topicPrefix = "tandem.";

    public String getBootstrapServers() {
      return bootstrapServers;
    }

    public void setBootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
    }

    public String getSource() {
      return source;
    }

    public void setSource(String source) {
      this.source = source;
    }

    public String getTopicPrefix() {
      return topicPrefix;
    }

    public void setTopicPrefix(String topicPrefix) {
      this.topicPrefix = topicPrefix;
    }
  }

  /** The actuator health contributor ({@code tandem.health.*}). */
  public static class Health {
    /** Above this age of the oldest unpublished event, health is DOWN. */
    private Duration maxOldestPendingAge = Duration.ofMinutes(5);

    /** The inbox consumers whose gaps (and dead letters, in the details) health reports. */
    private List<String> consumers = new ArrayList<>();

    /** Above this age of a consumer's gap (a version that has not arrived), health is DOWN. */
    private Duration maxGapAge = Duration.ofMinutes(5);

    public Duration getMaxOldestPendingAge() {
      return maxOldestPendingAge;
    }

    public void setMaxOldestPendingAge(Duration maxOldestPendingAge) {
      this.maxOldestPendingAge = maxOldestPendingAge;
    }

    public List<String> getConsumers() {
      return consumers;
    }

    public void setConsumers(List<String> consumers) {
      this.consumers = consumers;
    }

    public Duration getMaxGapAge() {
      return maxGapAge;
    }

    public void setMaxGapAge(Duration maxGapAge) {
      this.maxGapAge = maxGapAge;
    }
  }

  /** The outbox gauges in the application's MeterRegistry ({@code tandem.metrics.*}). */
  public static class Metrics {
    /**
     * How often the outbox gauges (pending, oldest pending age, ...) are read from the database.
     */
    private Duration refreshInterval = Duration.ofSeconds(5);

    public Duration getRefreshInterval() {
      return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
      this.refreshInterval = refreshInterval;
    }
  }

  @Override
  public boolean supports(Class<?> type) {
    return TandemProperties.class.isAssignableFrom(type);
  }

  /** Rejects what Tandem's builders would refuse, naming the property, the value and the rule. */
  @Override
  public void validate(Object target, Errors errors) {
    TandemProperties p = (TandemProperties) target;
    try {
      p.relay.toBuilder().checkSettings();
    } catch (IllegalArgumentException e) {
      // The builder names its parameter (batchSize = tandem.relay.batch-size) and the value.
      errors.reject("tandem.relay", "tandem.relay: " + e.getMessage());
    }
    positive(errors, "health.maxOldestPendingAge", p.health.maxOldestPendingAge);
    positive(errors, "health.maxGapAge", p.health.maxGapAge);
    positive(errors, "metrics.refreshInterval", p.metrics.refreshInterval);
    if (p.kafka.topicPrefix == null || !p.kafka.topicPrefix.matches("[A-Za-z0-9._-]{0,200}")) {
      errors.rejectValue(
          "kafka.topicPrefix",
          "tandem.kafka.topicPrefix",
          "must be at most 200 of the characters Kafka allows in a topic name (letters, digits,"
              + " '.', '_', '-'), was '"
              + p.kafka.topicPrefix
              + "'");
    }
  }

  private static void positive(Errors errors, String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      errors.rejectValue(field, "tandem." + field, "must be a positive duration, was " + d);
    }
  }
}
