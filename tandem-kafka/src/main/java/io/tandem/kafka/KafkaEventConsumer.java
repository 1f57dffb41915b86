package io.tandem.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.kafka.internal.ClientProperties;
import io.tandem.kafka.internal.ConsumerCounters;
import io.tandem.kafka.internal.ConsumerLoop;
import io.tandem.kafka.internal.TopicNames;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes Tandem events from Kafka topics and hands them, one at a time and in partition order, to
 * an {@link EventHandler}; an offset is committed only for records whose handler returned normally.
 *
 * <pre>{@code
 * KafkaEventConsumer consumer = KafkaEventConsumer.builder()
 *     .bootstrapServers("localhost:9092")
 *     .groupId("payments")
 *     .topics(List.of("tandem.order"))
 *     .handler(event -> inbox.handle(event))
 *     .build();
 * consumer.start();
 * ...
 * consumer.close();
 * }</pre>
 *
 * <p>Behaviour:
 *
 * <ul>
 *   <li>One poll thread, {@code tandem-kafka-consumer-<groupId>} (not a daemon), started by {@link
 *       #start()}. Offsets are committed with {@code commitSync} after each poll's records, before
 *       a retry backoff, when partitions are revoked and on close ({@code enable.auto.commit} is
 *       off; a new group starts from the earliest offset).
 *   <li>When the handler throws, the record is retried after {@link RetryPolicy#delayAfter} the
 *       number of failed attempts; no offset is committed past it, so its partition waits until it
 *       succeeds. Nothing is skipped, even after the policy's {@code maxAttempts} (then it is
 *       logged at ERROR at each attempt).
 *   <li>A record that is not a valid Tandem CloudEvent goes to the {@link InvalidMessageHandler}
 *       (default: log at ERROR and skip), and is counted in {@link #invalidCount()}.
 *   <li>The {@link FaultInjector} point {@link FaultInjector#CONSUMER_AFTER_COMMIT} is reached
 *       after a handler returned and before the offset is committed. A {@link
 *       FaultInjector.SimulatedCrash} stops the loop at once without committing anything; the Kafka
 *       consumer is closed (it leaves the group) and the group redelivers the records.
 * </ul>
 *
 * <p>Defaults: poll timeout 200 ms, {@link RetryPolicy#DEFAULTS}, {@link
 * InvalidMessageHandler#LOG_AND_SKIP}, {@link FaultInjector#NONE}, no metrics, close timeout 30 s.
 * With a {@link MeterRegistry}, counters {@code tandem.consumer.handled}, {@code
 * tandem.consumer.failed.attempts} and {@code tandem.consumer.invalid} (tags {@code
 * transport=kafka}, {@code group}).
 *
 * <p>Thread-safe: {@link #start()}, {@link #close()} and the counters may be called from any
 * thread.
 *
 * <p>This consumer applies one record at a time on its poll thread. To apply the records of a
 * partition in parallel (one lane per aggregate) through an inbox, use a {@link KafkaMessageSource}
 * with the inbox's consumer runner instead.
 */
public final class KafkaEventConsumer implements AutoCloseable {
  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(200);
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(KafkaEventConsumer.class);

  private final Map<String, Object> config;
  private final ConsumerLoop.Settings settings;
  private final ConsumerCounters counters;
  private final Duration closeTimeout;
  private ConsumerLoop loop; // guarded by this
  private Thread thread; // guarded by this
  private boolean closed; // guarded by this

  private KafkaEventConsumer(Builder b) {
    this.config = ClientProperties.consumer(b.bootstrapServers, b.groupId, b.consumerProperties);
    this.settings =
        new ConsumerLoop.Settings(
            b.groupId,
            List.copyOf(b.topics),
            b.handler,
            b.invalidMessageHandler,
            b.retryPolicy,
            b.pollTimeout,
            b.faultInjector);
    this.counters = new ConsumerCounters(b.meterRegistry, b.groupId);
    this.closeTimeout = b.closeTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Creates the Kafka consumer, subscribes and starts the poll thread.
   *
   * @throws IllegalStateException if already started or closed
   * @throws org.apache.kafka.common.KafkaException if the Kafka client refuses the configuration
   */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("consumer " + settings.groupId() + " is closed");
    }
    if (thread != null) {
      throw new IllegalStateException("consumer " + settings.groupId() + " is already started");
    }
    loop = new ConsumerLoop(new KafkaConsumer<>(config), settings, counters);
    thread = new Thread(loop, "tandem-kafka-consumer-" + settings.groupId());
    thread.setDaemon(false);
    thread.start();
  }

  /** Whether the poll loop is running: started, and neither closed nor crashed. */
  public synchronized boolean isRunning() {
    return loop != null && loop.running();
  }

  /**
   * The partitions the group currently assigns to this consumer; empty before the first assignment
   * and after close. Useful to wait until a consumer is ready.
   */
  public synchronized java.util.Set<org.apache.kafka.common.TopicPartition> assignment() {
    return loop == null ? java.util.Set.of() : loop.assignment();
  }

  /** Events the handler applied (returned normally). */
  public long handledCount() {
    return counters.handledCount();
  }

  /** Handler calls (and invalid-message-handler calls) that threw. */
  public long failedAttempts() {
    return counters.failedAttempts();
  }

  /** Records skipped because they were not valid Tandem CloudEvents. */
  public long invalidCount() {
    return counters.invalidCount();
  }

  /**
   * Stops the loop gracefully: the record being handled is finished, processed offsets are
   * committed and the Kafka consumer leaves the group. Waits at most the close timeout, then
   * interrupts the poll thread. Idempotent.
   */
  @Override
  public void close() {
    Thread running;
    ConsumerLoop stopping;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      running = thread;
      stopping = loop;
    }
    if (stopping == null) {
      return;
    }
    stopping.stop();
    if (running == Thread.currentThread()) {
      return; // called from the handler: the loop ends after it returns
    }
    try {
      running.join(closeTimeout.toMillis());
      if (running.isAlive()) {
        LOG.warn(
            "consumer {}: the poll thread did not stop within {}; interrupting it",
            settings.groupId(),
            closeTimeout);
        running.interrupt();
        running.join(1000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Builds a {@link KafkaEventConsumer}; {@code bootstrapServers}, {@code groupId}, {@code topics}
   * and {@code handler} are required.
   */
  public static final class Builder {
    private String bootstrapServers;
    private String groupId;
    private List<String> topics;
    private EventHandler handler;
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULTS;
    private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
    private final Map<String, String> consumerProperties = new LinkedHashMap<>();
    private FaultInjector faultInjector = FaultInjector.NONE;
    private InvalidMessageHandler invalidMessageHandler = InvalidMessageHandler.LOG_AND_SKIP;
    private MeterRegistry meterRegistry;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;

    private Builder() {}

    /** The brokers to bootstrap from, e.g. {@code "kafka-1:9092,kafka-2:9092"}. Required. */
    public Builder bootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
      return this;
    }

    /** The consumer group; consumers of one group share the partitions. Required. */
    public Builder groupId(String groupId) {
      this.groupId = groupId;
      return this;
    }

    /** The topics to subscribe to. Required, not empty. */
    public Builder topics(List<String> topics) {
      this.topics = topics;
      return this;
    }

    /** Applies each event. Required. */
    public Builder handler(EventHandler handler) {
      this.handler = handler;
      return this;
    }

    /** The backoff between attempts of a failing record; default {@link RetryPolicy#DEFAULTS}. */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /** The longest a single poll waits for records; default 200 ms. */
    public Builder pollTimeout(Duration pollTimeout) {
      this.pollTimeout = pollTimeout;
      return this;
    }

    /**
     * Any other Kafka consumer setting, e.g. {@code ("max.poll.records", "200")}. Refused: {@code
     * enable.auto.commit=true}, deserializers, {@code group.id}, {@code bootstrap.servers}.
     */
    public Builder consumerProperty(String key, String value) {
      ClientProperties.checkEntry("consumerProperty", key, value);
      consumerProperties.put(key, value);
      return this;
    }

    /** Fault points for drills; default {@link FaultInjector#NONE}. */
    public Builder faultInjector(FaultInjector faultInjector) {
      this.faultInjector = faultInjector;
      return this;
    }

    /** What to do with undecodable records; default {@link InvalidMessageHandler#LOG_AND_SKIP}. */
    public Builder invalidMessageHandler(InvalidMessageHandler invalidMessageHandler) {
      this.invalidMessageHandler = invalidMessageHandler;
      return this;
    }

    /** Where to publish the consumer's counters; default none. */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = meterRegistry;
      return this;
    }

    /** How long {@link #close()} waits for the loop to finish; default 30 s. */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
      return this;
    }

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     */
    public KafkaEventConsumer build() {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new IllegalArgumentException(
            "bootstrapServers must not be blank, e.g. \"localhost:9092\"");
      }
      if (groupId == null || groupId.isBlank()) {
        throw new IllegalArgumentException("groupId must not be blank");
      }
      if (topics == null || topics.isEmpty()) {
        throw new IllegalArgumentException("topics must name at least one topic");
      }
      for (String topic : topics) {
        TopicNames.validate("topics", topic);
      }
      require(handler, "handler");
      require(retryPolicy, "retryPolicy");
      require(faultInjector, "faultInjector");
      require(invalidMessageHandler, "invalidMessageHandler");
      positive(pollTimeout, "pollTimeout");
      positive(closeTimeout, "closeTimeout");
      return new KafkaEventConsumer(this);
    }

    private static void require(Object value, String name) {
      if (value == null) {
        throw new IllegalArgumentException(name + " must not be null");
      }
    }

    private static void positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
      }
    }
  }
}
