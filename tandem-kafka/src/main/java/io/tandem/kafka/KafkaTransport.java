package io.tandem.kafka;

import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.kafka.internal.BatchPublisher;
import io.tandem.kafka.internal.ClientProperties;
import io.tandem.kafka.internal.ProducerSlot;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Publishes events to Kafka as CloudEvents 1.0 in binary content mode (see {@link
 * CloudEventsKafkaCodec}), keyed by aggregate id, through one idempotent producer ({@code
 * acks=all}, {@code enable.idempotence=true}, at most 5 requests in flight, so that one aggregate's
 * events keep their order).
 *
 * <pre>{@code
 * try (KafkaTransport kafka = KafkaTransport.builder()
 *     .bootstrapServers("localhost:9092")
 *     .source("/tandem/orders-service")
 *     .topicRouter(TopicRouter.byAggregateType("shop."))
 *     .producerProperty("compression.type", "lz4")
 *     .build()) {
 *   List<PublishOutcome> outcomes = kafka.publish(events, Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>{@link #publish} hands the whole batch to the producer, then waits once for every
 * acknowledgement; an event is acknowledged only when its send completed successfully, and an event
 * not acknowledged by the deadline is a {@link io.tandem.core.ErrorClass#TIMEOUT} failure. Failures
 * are classified: timeouts, missing replicas, lost connections and other retriable client errors
 * are retriable; too-large records, encoding errors, authorization failures and illegal topics are
 * permanent; anything else is {@code UNKNOWN} (permanent). When the producer enters a fatal state
 * (fenced, broken sequence, closed) its failures are {@code TRANSIENT} and the next publish uses a
 * new producer.
 *
 * <p>Defaults: topic router {@link TopicRouter#byAggregateType()}, {@code linger.ms} 0, {@code
 * batch.size} 256 KiB, {@code max.block.ms} 5 s (a publish can overrun its timeout by at most this
 * much while the producer waits for metadata), close timeout zero. Any other producer setting can
 * be given with {@link Builder#producerProperty}; settings that the delivery guarantee depends on
 * are refused.
 *
 * <p>Thread-safe: several threads may publish at once through the one producer.
 */
public final class KafkaTransport implements Transport {
  /**
   * How long {@link #close()} lets sends in flight complete: zero, as the {@link Transport}
   * contract says (they are abandoned; their events were not marked published and will be sent
   * again).
   */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ZERO;

  private final ProducerSlot producers;
  private final BatchPublisher publisher;
  private final Duration closeTimeout;

  private KafkaTransport(Builder b) {
    Map<String, Object> config =
        ClientProperties.producer(b.bootstrapServers, b.producerProperties);
    this.producers = new ProducerSlot(() -> new KafkaProducer<>(config));
    this.producers.acquire(); // fail fast on a configuration the client refuses
    this.publisher =
        new BatchPublisher(producers, b.topicRouter, CloudEventsKafkaCodec.create(b.source));
    this.closeTimeout = b.closeTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The producer configuration this transport runs with for {@code bootstrapServers} and {@code
   * extra} (idempotence, acks=all and the serializers fixed; Tandem's defaults for the rest), for a
   * tool that must publish exactly as the relay does, such as the benchmarks' hand-written floor.
   *
   * @throws IllegalArgumentException if {@code extra} overrides a setting a guarantee depends on
   */
  public static Map<String, Object> producerConfig(
      String bootstrapServers, Map<String, String> extra) {
    return ClientProperties.producer(bootstrapServers, extra);
  }

  /** {@code kafka}. */
  @Override
  public String name() {
    return "kafka";
  }

  /**
   * Publishes every event and waits at most {@code timeout} for all acknowledgements.
   *
   * @return one outcome per event, in the order of {@code events}
   * @throws IllegalStateException if this transport is closed
   */
  @Override
  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    Transport.checkPublishArguments(events, timeout);
    if (events.isEmpty()) {
      return List.of();
    }
    return publisher.publish(events, timeout);
  }

  /**
   * Closes the producer, giving sends in flight at most the close timeout (default zero: they are
   * abandoned); a publish still waiting sees its unacknowledged events fail as retriable. Later
   * publishes throw {@link IllegalStateException}. Idempotent.
   */
  @Override
  public void close() {
    producers.close(closeTimeout);
  }

  /** Builds a {@link KafkaTransport}; {@code bootstrapServers} and {@code source} are required. */
  public static final class Builder {
    private String bootstrapServers;
    private String source;
    private TopicRouter topicRouter = TopicRouter.byAggregateType();
    private final Map<String, String> producerProperties = new LinkedHashMap<>();
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;

    private Builder() {}

    /** The brokers to bootstrap from, e.g. {@code "kafka-1:9092,kafka-2:9092"}. Required. */
    public Builder bootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
      return this;
    }

    /**
     * The CloudEvents {@code source} of every event: a URI reference naming the producing service,
     * e.g. {@code /tandem/orders-service}. Required.
     */
    public Builder source(String source) {
      this.source = source;
      return this;
    }

    /** Chooses each event's topic; default {@link TopicRouter#byAggregateType()}. */
    public Builder topicRouter(TopicRouter topicRouter) {
      this.topicRouter = topicRouter;
      return this;
    }

    /**
     * Any other Kafka producer setting, e.g. {@code ("compression.type", "lz4")}. Refused: {@code
     * acks} other than {@code all}, {@code enable.idempotence=false}, more than 5 requests in
     * flight, serializers, {@code transactional.id}, {@code bootstrap.servers}.
     */
    public Builder producerProperty(String key, String value) {
      ClientProperties.checkEntry("producerProperty", key, value);
      producerProperties.put(key, value);
      return this;
    }

    /**
     * The settings of {@code clientProperties} a producer knows ({@link
     * KafkaClientProperties#producer}), each as {@link #producerProperty}: the client settings a
     * program gives all its Kafka clients (TLS, SASL), of which a consumer's are left out.
     */
    public Builder clientProperties(Map<String, String> clientProperties) {
      KafkaClientProperties.producer(clientProperties).forEach(this::producerProperty);
      return this;
    }

    /**
     * How long {@link #close()} lets sends in flight complete; default zero (abandon them, as the
     * {@link Transport} contract says).
     */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
      return this;
    }

    /**
     * Validates the settings and creates the producer (which does not connect yet).
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     * @throws org.apache.kafka.common.KafkaException if the Kafka client refuses the configuration
     */
    public KafkaTransport build() {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new IllegalArgumentException(
            "bootstrapServers must not be blank, e.g. \"localhost:9092\"");
      }
      CloudEventsKafkaCodec.create(source); // validates source, naming it
      if (topicRouter == null) {
        throw new IllegalArgumentException("topicRouter must not be null");
      }
      if (closeTimeout == null || closeTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "closeTimeout must be zero or positive, was " + closeTimeout);
      }
      return new KafkaTransport(this);
    }
  }
}
