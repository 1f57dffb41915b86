package io.tandem.spring;

import io.tandem.core.RetryPolicy;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.UnsupportedEventPolicy;
import io.tandem.outbox.OutboxRelay;
import io.tandem.saga.SagaOrchestrator;
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

  /**
   * The broker: kafka, rabbitmq, nats or redis (its module must be on the classpath); default kafka
   * when tandem.kafka.bootstrap-servers is set.
   */
  private String transport;

  /** The CloudEvents source of published events; default /tandem/ + spring.application.name. */
  private String source;

  private final Relay relay = new Relay();
  private final Rabbitmq rabbitmq = new Rabbitmq();
  private final Nats nats = new Nats();
  private final Redis redis = new Redis();
  private final Consumer consumer = new Consumer();
  private final Saga saga = new Saga();
  private final Kafka kafka = new Kafka();
  private final Health health = new Health();
  private final Metrics metrics = new Metrics();

  public boolean isMigrate() {
    return migrate;
  }

  public void setMigrate(boolean migrate) {
    this.migrate = migrate;
  }

  public String getTransport() {
    return transport;
  }

  public void setTransport(String transport) {
    this.transport = transport;
  }

  public String getSource() {
    return source;
  }

  public void setSource(String source) {
    this.source = source;
  }

  public Rabbitmq getRabbitmq() {
    return rabbitmq;
  }

  public Nats getNats() {
    return nats;
  }

  public Redis getRedis() {
    return redis;
  }

  public Consumer getConsumer() {
    return consumer;
  }

  public Saga getSaga() {
    return saga;
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

  /** The RabbitMQ transport ({@code tandem.rabbitmq.*}), with tandem.transport=rabbitmq. */
  public static class Rabbitmq {
    /** The broker's AMQP URI, e.g. amqp://user:secret@localhost:5672/vhost. */
    private String uri;

    /** Whether to declare the exchanges, and each consumer's queue and its bindings. */
    private boolean declareTopology = true;

    /** Each consumer's queue is this prefix + the consumer's name. */
    private String queuePrefix = "tandem.";

    public String getUri() {
      return uri;
    }

    public void setUri(String uri) {
      this.uri = uri;
    }

    public boolean isDeclareTopology() {
      return declareTopology;
    }

    public void setDeclareTopology(boolean declareTopology) {
      this.declareTopology = declareTopology;
    }

    public String getQueuePrefix() {
      return queuePrefix;
    }

    public void setQueuePrefix(String queuePrefix) {
      this.queuePrefix = queuePrefix;
    }
  }

  /** The NATS JetStream transport ({@code tandem.nats.*}), with tandem.transport=nats. */
  public static class Nats {
    /** The server's URL, e.g. nats://localhost:4222. */
    private String url;

    /** The JetStream stream holding subjects tandem.>. */
    private String stream = "TANDEM";

    /** Whether to create the stream (file storage, one replica) when it does not exist. */
    private boolean createStream = true;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getStream() {
      return stream;
    }

    public void setStream(String stream) {
      this.stream = stream;
    }

    public boolean isCreateStream() {
      return createStream;
    }

    public void setCreateStream(boolean createStream) {
      this.createStream = createStream;
    }
  }

  /** The Redis Streams transport ({@code tandem.redis.*}), with tandem.transport=redis. */
  public static class Redis {
    /** The server's URI, e.g. redis://localhost:6379. */
    private String uri;

    public String getUri() {
      return uri;
    }

    public void setUri(String uri) {
      this.uri = uri;
    }
  }

  /**
   * The consumers the starter runs: {@code @TandemHandler} methods and saga participants ({@code
   * tandem.consumer.*}).
   */
  public static class Consumer {
    /** Whether to run the annotated handlers' and saga participants' consumers. */
    private boolean enabled = true;

    /** Messages applied at once per consumer (different aggregates). */
    private int concurrency = ConsumerRunner.DEFAULT_CONCURRENCY;

    /** The ordering guard: apply each aggregate's versions in order, park early ones. */
    private boolean ordered = true;

    /** Attempts of a failing handler before its event is dead-lettered. */
    private int maxAttempts = InboxProcessor.DEFAULT_RETRY_POLICY.maxAttempts();

    /** Delay before the first retry of a failing handler (doubling up to retry-cap). */
    private Duration retryBase = InboxProcessor.DEFAULT_RETRY_POLICY.base();

    /** The longest delay between retries of a failing handler. */
    private Duration retryCap = InboxProcessor.DEFAULT_RETRY_POLICY.cap();

    /** What to do with an event type no handler of the consumer takes. */
    private UnsupportedEventPolicy unknownEventTypes = UnsupportedEventPolicy.SKIP;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getConcurrency() {
      return concurrency;
    }

    public void setConcurrency(int concurrency) {
      this.concurrency = concurrency;
    }

    public boolean isOrdered() {
      return ordered;
    }

    public void setOrdered(boolean ordered) {
      this.ordered = ordered;
    }

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Duration getRetryBase() {
      return retryBase;
    }

    public void setRetryBase(Duration retryBase) {
      this.retryBase = retryBase;
    }

    public Duration getRetryCap() {
      return retryCap;
    }

    public void setRetryCap(Duration retryCap) {
      this.retryCap = retryCap;
    }

    public UnsupportedEventPolicy getUnknownEventTypes() {
      return unknownEventTypes;
    }

    public void setUnknownEventTypes(UnsupportedEventPolicy unknownEventTypes) {
      this.unknownEventTypes = unknownEventTypes;
    }

    /** The retry policy of these settings. */
    public RetryPolicy retryPolicy() {
      return RetryPolicy.builder().base(retryBase).cap(retryCap).maxAttempts(maxAttempts).build();
    }
  }

  /**
   * The saga orchestrator run for the application's SagaDefinition beans ({@code tandem.saga.*}).
   */
  public static class Saga {
    /** Whether to run an orchestrator when SagaDefinition beans exist. */
    private boolean enabled = true;

    /** The orchestrator's name (its inbox consumer); default spring.application.name + -sagas. */
    private String name;

    /** The aggregate type participants reply to; default the orchestrator's name + -replies. */
    private String replyTo;

    /** How often the timer looks for step timeouts and retries that are due. */
    private Duration timerInterval = SagaOrchestrator.DEFAULT_TIMER_INTERVAL;

    /** How often the saga gauges (instances per status, STUCK) are read. */
    private Duration metricsRefreshInterval = Duration.ofSeconds(15);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public String getReplyTo() {
      return replyTo;
    }

    public void setReplyTo(String replyTo) {
      this.replyTo = replyTo;
    }

    public Duration getTimerInterval() {
      return timerInterval;
    }

    public void setTimerInterval(Duration timerInterval) {
      this.timerInterval = timerInterval;
    }

    public Duration getMetricsRefreshInterval() {
      return metricsRefreshInterval;
    }

    public void setMetricsRefreshInterval(Duration metricsRefreshInterval) {
      this.metricsRefreshInterval = metricsRefreshInterval;
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
    positive(errors, "saga.timerInterval", p.saga.timerInterval);
    positive(errors, "saga.metricsRefreshInterval", p.saga.metricsRefreshInterval);
    if (p.consumer.concurrency < 1) {
      errors.rejectValue(
          "consumer.concurrency",
          "tandem.consumer.concurrency",
          "must be at least 1, was " + p.consumer.concurrency);
    }
    try {
      p.consumer.retryPolicy();
    } catch (IllegalArgumentException e) {
      errors.reject("tandem.consumer", "tandem.consumer: " + e.getMessage());
    }
    if (p.transport != null
        && !p.transport.isBlank()
        && !p.transport.trim().matches("(?i)kafka|rabbitmq|nats|redis")) {
      errors.rejectValue(
          "transport",
          "tandem.transport",
          "must be one of kafka, rabbitmq, nats, redis, was '" + p.transport + "'");
    }
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
