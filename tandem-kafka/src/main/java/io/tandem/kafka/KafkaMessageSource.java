package io.tandem.kafka;

import io.tandem.core.InvalidMessageException;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import io.tandem.kafka.internal.ClientProperties;
import io.tandem.kafka.internal.Dispatcher;
import io.tandem.kafka.internal.HandOver;
import io.tandem.kafka.internal.SourceLoop;
import io.tandem.kafka.internal.TopicNames;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MessageSource} reading Tandem events from Kafka topics as one member of a consumer
 * group, for a consumer runner that processes records of one partition in parallel (different
 * aggregates) and acknowledges them in any order.
 *
 * <pre>{@code
 * KafkaMessageSource source = KafkaMessageSource.builder()
 *     .bootstrapServers("localhost:9092")
 *     .groupId("billing")
 *     .topics(List.of("tandem.order"))
 *     .build();
 * source.start(message -> runner.offer(message)); // usually the runner starts it
 * ...
 * source.close();
 * }</pre>
 *
 * <p>Behaviour:
 *
 * <ul>
 *   <li>Two threads, neither a daemon: {@code tandem-kafka-source-<groupId>-poll} owns the Kafka
 *       consumer, and {@code tandem-kafka-source-<groupId>} hands the records to the sink one at a
 *       time, in partition order. Each record becomes an {@link InboundMessage}: key = the record
 *       key, origin {@code kafka <topic>[<partition>]@<offset>}, raw headers = the record headers
 *       as UTF-8 text, raw body = the value (empty when null), {@link InboundMessage#decode()} by
 *       {@link CloudEventsKafkaCodec} (throws {@link InvalidMessageException}).
 *   <li>Offsets: per partition, the source commits the contiguous acknowledged prefix: up to the
 *       lowest offset handed over and not acknowledged yet, or past the last one handed over when
 *       all are. Commits ({@code commitSync}; {@code enable.auto.commit} is off; a new group starts
 *       from the earliest offset) happen at most every 250 ms after a poll, on revocation and on
 *       close. So a record is committed only after it and every earlier record of its partition
 *       were acknowledged; everything else is delivered again to the group's next owner.
 *   <li>Back-pressure: the sink may block. Fetching stops meanwhile: when twice {@code
 *       max.poll.records} records wait for hand-over, every assigned partition is paused, and the
 *       poll thread keeps polling (and committing), so a sink blocked for longer than {@code
 *       max.poll.interval.ms} does not get the member evicted from the group. When the sink returns
 *       false, hand-over stops for good: that record and the fetched ones after it stay
 *       unacknowledged, the partitions stay paused, and acknowledgements of records handed over
 *       before are still committed until {@link #close()}.
 *   <li>Rebalance: records of a revoked partition that were fetched but not handed over are
 *       dropped; the ones handed over get up to the rebalance timeout to be acknowledged, then the
 *       acknowledged prefix is committed and the partition forgotten: later acknowledgements of its
 *       records are ignored. A lost partition (the member was evicted) is forgotten without a
 *       commit. The rebalance timeout must be shorter than {@code max.poll.interval.ms}, the time
 *       the group waits for a member to rejoin.
 *   <li>A poll that throws is logged and retried after a backoff ({@link
 *       io.tandem.core.RetryPolicy#DEFAULTS}); a sink that throws gets the same record again after
 *       a backoff, unless its partition left meanwhile.
 * </ul>
 *
 * <p>Defaults: poll timeout 200 ms, rebalance timeout 30 s, close timeout 30 s.
 *
 * <p>Thread-safe: {@link #start}, {@link #close()}, {@link #isRunning()} and {@link #assignment()}
 * may be called from any thread, {@link InboundMessage#acknowledge()} too.
 */
public final class KafkaMessageSource implements MessageSource {
  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(200);
  public static final Duration DEFAULT_REBALANCE_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(KafkaMessageSource.class);
  private static final int DEFAULT_MAX_POLL_RECORDS = 500;
  private static final long DEFAULT_MAX_POLL_INTERVAL_MS = 300_000;

  private final Map<String, Object> config;
  private final String groupId;
  private final List<String> topics;
  private final SourceLoop.Settings settings;
  private final Duration closeTimeout;
  private final HandOver handOver = new HandOver();
  private SourceLoop loop; // guarded by this
  private Dispatcher dispatcher; // guarded by this
  private Thread pollThread; // guarded by this
  private Thread handOverThread; // guarded by this
  private boolean closed; // guarded by this

  private KafkaMessageSource(Builder b, int bufferLimit) {
    this.config = ClientProperties.consumer(b.bootstrapServers, b.groupId, b.consumerProperties);
    this.groupId = b.groupId;
    this.topics = List.copyOf(b.topics);
    this.settings =
        new SourceLoop.Settings(groupId, topics, b.pollTimeout, b.rebalanceTimeout, bufferLimit);
    this.closeTimeout = b.closeTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code kafka}. */
  @Override
  public String transport() {
    return "kafka";
  }

  /** For example {@code group billing on tandem.order}. */
  @Override
  public String describe() {
    return "group " + groupId + " on " + String.join(", ", topics);
  }

  /**
   * Creates the Kafka consumer, subscribes and starts the poll and hand-over threads. Joining the
   * group and fetching happen on the poll thread; a broker that cannot be reached is logged and
   * retried there.
   *
   * @throws IllegalStateException if already started or closed
   * @throws IllegalArgumentException if {@code sink} is null
   * @throws org.apache.kafka.common.KafkaException if the Kafka client refuses the configuration
   */
  @Override
  public synchronized void start(MessageSink sink) {
    if (sink == null) {
      throw new IllegalArgumentException("sink must not be null");
    }
    if (closed) {
      throw new IllegalStateException("source " + describe() + " is closed");
    }
    if (loop != null) {
      throw new IllegalStateException("source " + describe() + " is already started");
    }
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config);
    SourceLoop newLoop = new SourceLoop(consumer, handOver, settings);
    try {
      newLoop.subscribe();
    } catch (RuntimeException e) {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
      throw e;
    }
    loop = newLoop;
    dispatcher = new Dispatcher(handOver, sink, groupId);
    pollThread = new Thread(loop, "tandem-kafka-source-" + groupId + "-poll");
    handOverThread = new Thread(dispatcher, "tandem-kafka-source-" + groupId);
    pollThread.start();
    handOverThread.start();
  }

  /** Whether both threads run: started, not closed, and the sink never refused a record. */
  @Override
  public synchronized boolean isRunning() {
    return loop != null && !closed && loop.running() && dispatcher.running();
  }

  /**
   * The partitions the group currently assigns to this source; empty before the first assignment
   * and after close. Useful to wait until a source is ready.
   */
  public synchronized Set<TopicPartition> assignment() {
    return loop == null ? Set.of() : loop.assignment();
  }

  /**
   * Records of this source's partitions not processed yet, as of its last poll: what the broker
   * holds beyond the consumer's position (Kafka's records-lag, no extra request) plus what was
   * fetched and not acknowledged. Empty before the broker reported it.
   */
  @Override
  public synchronized OptionalLong lag() {
    long lag = loop == null ? -1 : loop.lag();
    return lag < 0 ? OptionalLong.empty() : OptionalLong.of(lag);
  }

  /** Records fetched so far, handed over or not (for tests of back-pressure). */
  synchronized long fetchedCount() {
    return loop == null ? 0 : loop.fetched();
  }

  /**
   * Stops receiving: interrupts the hand-over thread (a sink blocked in {@code accept} sees an
   * {@link InterruptedException}), commits the acknowledged prefix of every partition, and closes
   * the Kafka consumer, which leaves the group. Records handed over and not acknowledged by then
   * are delivered again to the group. Waits at most the close timeout, then interrupts the poll
   * thread (plus at most a second). Idempotent; may be called from the sink.
   */
  @Override
  public void close() {
    SourceLoop stopping;
    Thread poller;
    Thread handing;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stopping = loop;
      poller = pollThread;
      handing = handOverThread;
    }
    handOver.close();
    if (stopping == null) {
      return;
    }
    Thread self = Thread.currentThread();
    long deadline = System.nanoTime() + closeTimeout.toNanos();
    if (handing != self) {
      handing.interrupt();
    }
    stopping.stop();
    try {
      if (handing != self) {
        TimeUnit.NANOSECONDS.timedJoin(handing, Math.max(1, deadline - System.nanoTime()));
      }
      TimeUnit.NANOSECONDS.timedJoin(poller, Math.max(1, deadline - System.nanoTime()));
      if (poller.isAlive()) {
        LOG.warn(
            "source {}: the poll thread did not stop within {}; interrupting it",
            describe(),
            closeTimeout);
        poller.interrupt();
        poller.join(1000);
      }
      if (handing != self && handing.isAlive()) {
        LOG.warn(
            "source {}: the sink did not return within {} of an interrupt; its record stays "
                + "unacknowledged",
            describe(),
            closeTimeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Builds a {@link KafkaMessageSource}; {@code bootstrapServers}, {@code groupId} and {@code
   * topics} are required.
   */
  public static final class Builder {
    private String bootstrapServers;
    private String groupId;
    private List<String> topics;
    private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
    private Duration rebalanceTimeout = DEFAULT_REBALANCE_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private final Map<String, String> consumerProperties = new LinkedHashMap<>();

    private Builder() {}

    /** The brokers to bootstrap from, e.g. {@code "kafka-1:9092,kafka-2:9092"}. Required. */
    public Builder bootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
      return this;
    }

    /** The consumer group; sources of one group share the partitions. Required. */
    public Builder groupId(String groupId) {
      this.groupId = groupId;
      return this;
    }

    /** The topics to subscribe to. Required, not empty. */
    public Builder topics(List<String> topics) {
      this.topics = topics;
      return this;
    }

    /** The longest a single poll waits for records; default 200 ms. */
    public Builder pollTimeout(Duration pollTimeout) {
      this.pollTimeout = pollTimeout;
      return this;
    }

    /**
     * How long a revocation waits for the records handed over from the revoked partitions to be
     * acknowledged before committing what was and giving the rest up (to be delivered again);
     * default 30 s. Zero gives them up at once. Must be shorter than {@code max.poll.interval.ms}
     * (default 5 min). Best longer than a message may take in the runner (retries included): a
     * record given up while still being processed is delivered to the new owner meanwhile, and only
     * the inbox keeps the two from applying it twice.
     */
    public Builder rebalanceTimeout(Duration rebalanceTimeout) {
      this.rebalanceTimeout = rebalanceTimeout;
      return this;
    }

    /** How long {@link #close()} waits for the threads to finish; default 30 s. */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
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

    /**
     * The settings of {@code clientProperties} a consumer knows ({@link
     * KafkaClientProperties#consumer}), each as {@link #consumerProperty}: the client settings a
     * program gives all its Kafka clients (TLS, SASL), of which a producer's are left out.
     */
    public Builder clientProperties(Map<String, String> clientProperties) {
      KafkaClientProperties.consumer(clientProperties).forEach(this::consumerProperty);
      return this;
    }

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     */
    public KafkaMessageSource build() {
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
      positive(pollTimeout, "pollTimeout");
      positive(closeTimeout, "closeTimeout");
      if (rebalanceTimeout == null || rebalanceTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "rebalanceTimeout must be zero or positive, was " + rebalanceTimeout);
      }
      long maxPollInterval =
          number(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, DEFAULT_MAX_POLL_INTERVAL_MS);
      if (rebalanceTimeout.toMillis() >= maxPollInterval) {
        throw new IllegalArgumentException(
            "rebalanceTimeout ("
                + rebalanceTimeout
                + ") must be shorter than max.poll.interval.ms ("
                + maxPollInterval
                + " ms): the group does not wait longer for a member to rejoin");
      }
      long maxPollRecords =
          number(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, DEFAULT_MAX_POLL_RECORDS);
      return new KafkaMessageSource(this, (int) Math.min(2 * maxPollRecords, 1_000_000));
    }

    private long number(String property, long defaultValue) {
      String value = consumerProperties.get(property);
      if (value == null) {
        return defaultValue;
      }
      try {
        long parsed = Long.parseLong(value.trim());
        if (parsed > 0) {
          return parsed;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException(
          "consumerProperty(" + property + ") must be a positive integer, was '" + value + "'");
    }

    private static void positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
      }
    }
  }
}
