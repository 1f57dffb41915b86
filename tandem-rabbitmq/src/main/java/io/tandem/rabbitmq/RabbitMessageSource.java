package io.tandem.rabbitmq;

import io.tandem.core.LagProbe;
import io.tandem.core.TandemException;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import io.tandem.rabbitmq.internal.AmqpConnections;
import io.tandem.rabbitmq.internal.ExchangeNames;
import io.tandem.rabbitmq.internal.SourceLoop;
import io.tandem.rabbitmq.internal.SourceSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Consumes one RabbitMQ queue for a consumer runner: a {@link MessageSource} whose messages are the
 * events {@link RabbitTransport} published, decoded with {@link RabbitCloudEventsCodec}.
 *
 * <pre>{@code
 * RabbitMessageSource source = RabbitMessageSource.builder()
 *     .uri("amqp://billing:secret@rabbit-1:5672/shop")
 *     .queue("billing.orders")
 *     .declareQueue(true)                 // durable, single active consumer
 *     .bindAggregateType("Order")         // exchange tandem.order, binding key #
 *     .prefetch(256)
 *     .build();
 * source.declare();                       // optional: the queue exists before the first publish
 * source.start(runner);                   // runner is the MessageSink
 * ...
 * source.close();
 * }</pre>
 *
 * <p><b>Delivery.</b> One {@code basic.consume} with manual acknowledgements on a connection of the
 * source's own. The client's consumer thread appends each delivery to a queue; the source's thread
 * {@code tandem-rabbitmq-source-<queue>} hands them to the sink one at a time, in delivery order,
 * and may block there. {@link io.tandem.core.spi.InboundMessage#key()} is the {@code
 * cloudEvents_partitionkey} header (else the routing key: both are the aggregate id); {@code
 * origin()} is {@code rabbitmq <queue>#<delivery tag>}; {@code rawHeaders()} holds the envelope
 * ({@code exchange}, {@code routing_key}, {@code redelivered}), the properties that are set and
 * every header, as text.
 *
 * <p><b>Back-pressure.</b> The prefetch ({@code basic.qos}, per consumer, default {@value
 * #DEFAULT_PREFETCH}) bounds the messages delivered and not yet acknowledged: those waiting for the
 * sink plus those the runner holds. When the runner is full, the sink blocks, acknowledgements
 * stop, and the broker stops delivering.
 *
 * <p><b>Acknowledgement.</b> {@code acknowledge()} sends {@code basic.ack} for that delivery alone,
 * from any thread, on the channel that received it. If that channel is gone, nothing is sent and
 * nothing is thrown: the broker has already requeued the message, and delivery tags of a new
 * channel start afresh, so an old tag is never sent on it. Nothing is ever rejected: a message that
 * is not acknowledged is redelivered after the channel closes.
 *
 * <p><b>Order across consumers.</b> RabbitMQ spreads a queue's messages over all its consumers,
 * which breaks each aggregate's order when several processes consume one queue. With {@link
 * Builder#singleActiveConsumer(boolean)} (the default when the source declares the queue) the queue
 * delivers to one consumer at a time; the others wait, and when the active one goes away its
 * unacknowledged messages are requeued in their place and the next consumer takes over from there.
 * Scale by partitioning instead (one queue per aggregate-id hash via the consistent-hash exchange),
 * not by adding consumers to one queue.
 *
 * <p><b>Failures.</b> {@link #start(MessageSink)} opens the first connection itself and throws
 * {@link TandemException} with the broker's reason when it cannot consume (no such queue, access
 * refused, broker unreachable, inequivalent queue arguments). Later, when the connection or channel
 * is lost, the source logs it, drops the deliveries it had not handed over yet (the broker requeues
 * them with everything else unacknowledged) and reconnects every {@link
 * Builder#reconnectDelay(Duration)} until it succeeds or is closed. The client's automatic recovery
 * is off. When the sink returns {@code false} the consumer is cancelled ({@code basic.cancel}) and
 * the source thread ends; the connection stays open for outstanding acknowledgements until {@link
 * #close()}.
 *
 * <p>Defaults: prefetch {@value #DEFAULT_PREFETCH}, queue not declared, single active consumer when
 * declared, connection name = the queue name, connect timeout 5 s, close timeout 1 s, reconnect
 * delay 1 s, lag interval 5 s.
 *
 * <p>Thread-safe: {@link #close()} and {@link #isRunning()} may be called from any thread; {@link
 * #start(MessageSink)} once.
 */
public final class RabbitMessageSource implements MessageSource {
  /** Messages delivered and not yet acknowledged, at most: 256. */
  public static final int DEFAULT_PREFETCH = 256;

  /** The highest prefetch {@code basic.qos} can carry (an unsigned short); 0 would mean none. */
  public static final int MAX_PREFETCH = 65_535;

  /** How long each step of connecting and each channel RPC may take: 5 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = RabbitTransport.DEFAULT_CONNECT_TIMEOUT;

  /** How long {@link #close()} waits for the source thread, and then for the broker: 1 s each. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = RabbitTransport.DEFAULT_CLOSE_TIMEOUT;

  /** How long the source waits before each attempt to consume again after losing its channel. */
  public static final Duration DEFAULT_RECONNECT_DELAY = Duration.ofSeconds(1);

  /** The binding key that matches every routing key of a topic exchange. */
  public static final String ALL = "#";

  private final SourceSettings settings;
  private SourceLoop loop; // guarded by this
  private boolean closed; // guarded by this

  private RabbitMessageSource(SourceSettings settings) {
    this.settings = settings;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code rabbitmq}. */
  @Override
  public String transport() {
    return "rabbitmq";
  }

  /** {@code queue <name> on <uri without password> (prefetch <n>)}. */
  @Override
  public String describe() {
    return "queue "
        + settings.queue()
        + " on "
        + AmqpConnections.redact(settings.uri())
        + " (prefetch "
        + settings.prefetch()
        + ")";
  }

  /** The queue this source consumes. */
  public String queue() {
    return settings.queue();
  }

  /**
   * Declares the queue (durable; single active consumer unless disabled; the extra arguments), the
   * exchanges of its bindings (durable topic exchanges, as {@link
   * RabbitTransport.Builder#declareExchanges(boolean)} declares them) and the bindings, on a
   * short-lived connection, without consuming. Idempotent. Lets the subscription exist before the
   * first event is published, so that nothing published meanwhile is unroutable.
   *
   * @throws IllegalStateException if the source was built with {@code declareQueue(false)}
   * @throws TandemException with the broker's reason if it refuses, for example because the queue
   *     exists with other arguments
   */
  public void declare() {
    if (!settings.declareQueue()) {
      throw new IllegalStateException(
          "queue "
              + settings.queue()
              + " is not declared by Tandem: build with declareQueue(true)");
    }
    try {
      SourceLoop.declare(settings);
    } catch (IOException | RuntimeException e) {
      throw new TandemException(
          "cannot declare queue '" + settings.queue() + "': " + SourceLoop.reason(e), e);
    }
  }

  /**
   * Connects (declaring the topology first when {@code declareQueue(true)}), starts consuming and
   * the source thread, and returns.
   *
   * @throws IllegalStateException if already started or closed
   * @throws TandemException with the broker's reason if the source cannot consume
   */
  @Override
  public synchronized void start(MessageSink sink) {
    Objects.requireNonNull(sink, "sink must not be null");
    if (closed) {
      throw new IllegalStateException("source for queue " + settings.queue() + " is closed");
    }
    if (loop != null) {
      throw new IllegalStateException(
          "source for queue " + settings.queue() + " is already started");
    }
    SourceLoop starting = new SourceLoop(settings, sink);
    try {
      starting.start();
    } catch (IOException | RuntimeException e) {
      throw new TandemException(
          "cannot consume from queue '"
              + settings.queue()
              + "' on "
              + AmqpConnections.redact(settings.uri())
              + ": "
              + SourceLoop.reason(e),
          e);
    }
    loop = starting;
  }

  @Override
  public synchronized boolean isRunning() {
    return loop != null && loop.running();
  }

  /**
   * Messages of the queue not processed yet, as of the last reading (every {@linkplain
   * Builder#lagInterval lag interval}, on the thread {@code tandem-rabbitmq-lag-<queue>}): the
   * queue's ready messages ({@code messageCount} of a passive {@code queue.declare}) plus those
   * delivered to this source and not acknowledged. Messages other consumers of the queue hold
   * unacknowledged are not counted (with a single active consumer there are none). Empty before the
   * first reading, while reconnecting, and after a failed one. Never blocks.
   */
  @Override
  public OptionalLong lag() {
    SourceLoop current;
    synchronized (this) {
      current = loop;
    }
    return current == null ? OptionalLong.empty() : current.lag();
  }

  /**
   * Stops receiving and closes the connection: the source thread is interrupted (it may be blocked
   * in the sink) and awaited at most the close timeout, then the connection is closed, waiting at
   * most the close timeout for the broker. The broker requeues every delivery not acknowledged; an
   * acknowledgement after this is dropped. Idempotent.
   */
  @Override
  public void close() {
    SourceLoop running;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      running = loop;
    }
    if (running != null) {
      running.close();
    }
  }

  @Override
  public String toString() {
    return "RabbitMessageSource{" + describe() + "}";
  }

  /** Builds a {@link RabbitMessageSource}; {@code uri} and {@code queue} are required. */
  public static final class Builder {
    private String uri;
    private String queue;
    private String connectionName;
    private int prefetch = DEFAULT_PREFETCH;
    private boolean declareQueue;
    private boolean singleActiveConsumer = true;
    private final Map<String, Object> queueArguments = new LinkedHashMap<>();
    private final List<SourceSettings.Binding> bindings = new ArrayList<>();
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private Duration reconnectDelay = DEFAULT_RECONNECT_DELAY;
    private Duration lagInterval = LagProbe.DEFAULT_INTERVAL;

    private Builder() {}

    /**
     * The broker, as an AMQP URI, as for {@link RabbitTransport.Builder#uri(String)}: {@code
     * amqp://user:password@host:5672/vhost}, {@code amqps://} for TLS. Required.
     */
    public Builder uri(String uri) {
      this.uri = uri;
      return this;
    }

    /** The queue to consume: one per consuming service (the consumer group). Required. */
    public Builder queue(String queue) {
      this.queue = queue;
      return this;
    }

    /**
     * The name RabbitMQ shows for the source's connection; default the queue name. Also names the
     * client's threads {@code tandem-rabbitmq-<connectionName>-<n>}.
     */
    public Builder connectionName(String connectionName) {
      this.connectionName = connectionName;
      return this;
    }

    /**
     * How many messages the broker delivers ahead of acknowledgements ({@code basic.qos}, per
     * consumer), 1 to {@value #MAX_PREFETCH}; default {@value #DEFAULT_PREFETCH}. The bound on
     * messages in flight between the broker and the committed inbox.
     */
    public Builder prefetch(int prefetch) {
      this.prefetch = prefetch;
      return this;
    }

    /**
     * Whether {@link #start} (and {@link RabbitMessageSource#declare()}) declares the queue as a
     * durable queue, the exchanges of its {@linkplain #bind bindings} as durable topic exchanges,
     * and the bindings; default false, where the queue must exist. A queue that exists with other
     * arguments makes the declaration fail (406 PRECONDITION_FAILED).
     */
    public Builder declareQueue(boolean declareQueue) {
      this.declareQueue = declareQueue;
      return this;
    }

    /**
     * Whether a declared queue gets {@code x-single-active-consumer = true}, so that of several
     * sources on the queue one receives at a time and each aggregate's order holds across failover;
     * default true. A queue argument: it only applies when the source declares the queue (the
     * operator sets it on a queue the source does not declare).
     */
    public Builder singleActiveConsumer(boolean singleActiveConsumer) {
      this.singleActiveConsumer = singleActiveConsumer;
      return this;
    }

    /**
     * An extra argument of a declared queue, e.g. {@code queueArgument("x-queue-type", "quorum")}
     * for a replicated quorum queue. Needs {@code declareQueue(true)}.
     */
    public Builder queueArgument(String name, Object value) {
      if (name == null || name.isBlank() || value == null) {
        throw new IllegalArgumentException(
            "queueArgument needs a name and a value, was " + name + " = " + value);
      }
      if (name.equals(SourceSettings.SINGLE_ACTIVE_CONSUMER)) {
        throw new IllegalArgumentException(
            "queueArgument " + name + ": use singleActiveConsumer(boolean) instead");
      }
      queueArguments.put(name, value);
      return this;
    }

    /**
     * Binds a declared queue to {@code exchange} with {@code bindingKey}, a topic pattern over the
     * routing key, which is the aggregate id ({@value #ALL} for every aggregate). Needs {@code
     * declareQueue(true)}. May be called several times.
     */
    public Builder bind(String exchange, String bindingKey) {
      bindings.add(new SourceSettings.Binding(exchange, bindingKey));
      return this;
    }

    /** {@code bind(exchange, "#")}: every event published to {@code exchange}. */
    public Builder bind(String exchange) {
      return bind(exchange, ALL);
    }

    /**
     * {@code bind(exchange, "#")} for the exchange that {@link ExchangeRouter#byAggregateType()}
     * gives {@code aggregateType}: {@code Order} → {@code tandem.order}.
     */
    public Builder bindAggregateType(String aggregateType) {
      if (aggregateType == null || aggregateType.isBlank()) {
        throw new IllegalArgumentException(
            "aggregateType must not be blank, was '" + aggregateType + "'");
      }
      return bind(ExchangeRouter.DEFAULT_PREFIX + ExchangeNames.sanitize(aggregateType));
    }

    /** How long each step of connecting and each channel RPC may take; default 5 s. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * How long {@link RabbitMessageSource#close()} waits for the source thread, and then for the
     * broker to confirm the connection's close; default 1 s.
     */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
      return this;
    }

    /** How long to wait before each attempt to consume again after a failure; default 1 s. */
    public Builder reconnectDelay(Duration reconnectDelay) {
      this.reconnectDelay = reconnectDelay;
      return this;
    }

    /**
     * How often the source asks the broker for the queue's message count, for {@link
     * RabbitMessageSource#lag()}; default 5 s. Each reading is one passive {@code queue.declare} on
     * the source's connection.
     */
    public Builder lagInterval(Duration lagInterval) {
      this.lagInterval = lagInterval;
      return this;
    }

    /**
     * Validates the settings; connects only on {@link RabbitMessageSource#start} or {@link
     * RabbitMessageSource#declare()}.
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     */
    public RabbitMessageSource build() {
      if (uri == null || uri.isBlank()) {
        throw new IllegalArgumentException(
            "uri must not be blank, e.g. \"amqp://guest:guest@localhost:5672/\"");
      }
      AmqpConnections.checkUri(uri);
      if (queue == null || queue.isBlank()) {
        throw new IllegalArgumentException("queue must not be blank, was '" + queue + "'");
      }
      ExchangeNames.shortString("queue", queue);
      if (declareQueue && queue.startsWith("amq.")) {
        throw new IllegalArgumentException(
            "queue '" + queue + "' cannot be declared: names starting with 'amq.' are reserved");
      }
      String name = connectionName == null ? queue : connectionName;
      if (name.isBlank()) {
        throw new IllegalArgumentException(
            "connectionName must not be blank, was '" + connectionName + "'");
      }
      if (prefetch < 1 || prefetch > MAX_PREFETCH) {
        throw new IllegalArgumentException(
            "prefetch must be between 1 and " + MAX_PREFETCH + ", was " + prefetch);
      }
      for (SourceSettings.Binding binding : bindings) {
        ExchangeNames.validate("exchange", binding.exchange());
        if (binding.bindingKey() == null) {
          throw new IllegalArgumentException(
              "bindingKey must not be null (use \"#\" for every routing key)");
        }
        ExchangeNames.shortString("bindingKey", binding.bindingKey());
      }
      if (!declareQueue && (!bindings.isEmpty() || !queueArguments.isEmpty())) {
        throw new IllegalArgumentException(
            "bind and queueArgument need declareQueue(true): without it the source consumes an"
                + " existing queue as it is");
      }
      checkPositive("connectTimeout", connectTimeout);
      if (closeTimeout == null || closeTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "closeTimeout must be zero or positive, was " + closeTimeout);
      }
      checkPositive("reconnectDelay", reconnectDelay);
      LagProbe.checkInterval("lagInterval", lagInterval);
      return new RabbitMessageSource(
          new SourceSettings(
              uri,
              queue,
              name,
              prefetch,
              declareQueue,
              singleActiveConsumer,
              queueArguments,
              bindings,
              connectTimeout,
              closeTimeout,
              reconnectDelay,
              lagInterval));
    }

    private static void checkPositive(String parameter, Duration value) {
      if (value == null
          || value.isNegative()
          || value.isZero()
          || value.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            parameter
                + " must be a positive duration of at most "
                + Integer.MAX_VALUE
                + " ms, was "
                + value);
      }
    }
  }
}
