package io.tandem.rabbitmq;

import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.rabbitmq.internal.AmqpConnections;
import io.tandem.rabbitmq.internal.BatchPublisher;
import io.tandem.rabbitmq.internal.ChannelPool;
import java.time.Duration;
import java.util.List;

/**
 * Publishes events to RabbitMQ as CloudEvents 1.0 in binary content mode (see {@link
 * RabbitCloudEventsCodec} for the header mapping), with publisher confirms, as mandatory and
 * persistent messages routed by aggregate id.
 *
 * <pre>{@code
 * try (RabbitTransport rabbit = RabbitTransport.builder()
 *     .uri("amqp://tandem:secret@rabbit-1:5672/shop")
 *     .source("/tandem/orders-service")
 *     .exchangeRouter(ExchangeRouter.byAggregateType("shop."))
 *     .connectionName("orders-relay")
 *     .build()) {
 *   List<PublishOutcome> outcomes = rabbit.publish(events, Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p><b>What counts as acknowledged.</b> {@link #publish} publishes the whole batch on one channel
 * in confirm mode, then waits once for the broker's answers. An event is acknowledged only when the
 * broker confirmed ({@code basic.ack}) that exact message, by delivery tag. A message the broker
 * returned as unroutable ({@code basic.return}, 312 NO_ROUTE: no queue is bound for its routing
 * key) fails as {@link io.tandem.core.ErrorClass#UNROUTABLE} (permanent), although RabbitMQ
 * confirms it afterwards; a {@code basic.nack} is {@code TRANSIENT} (retriable); no answer by the
 * deadline is {@code TIMEOUT}.
 *
 * <p><b>Errors.</b> Refused connections and other failures to connect are {@code
 * BROKER_UNAVAILABLE}; a connection or channel lost while publishing is {@code CONNECTION_LOST};
 * both are retriable, and the next publish opens a new connection or channel. A broker that blocks
 * publishing (memory or disk alarm) fails the rest of the batch as {@code BROKER_UNAVAILABLE}.
 * Permanent: access refused (403) and bad credentials are {@code AUTHORIZATION}; a missing exchange
 * (404) is {@code UNROUTABLE}; a message over the broker's {@code max_message_size} (406) or frame
 * limits is {@code RECORD_TOO_LARGE}; an event that cannot be encoded is {@code SERIALIZATION}.
 * When the broker closes a channel because of one message, the other unconfirmed events of the
 * batch fail as {@code TRANSIENT}.
 *
 * <p><b>Topology.</b> The transport does not declare exchanges unless {@link
 * Builder#declareExchanges(boolean)} says so: exchanges, queues and bindings belong to the
 * operator. It checks each exchange once per connection (a passive declare) before the first
 * publish to it, so that a missing exchange fails only its own events.
 *
 * <p><b>Bounds.</b> A publish returns by its timeout; connecting counts against it. Two waits can
 * overrun it, and only when the broker has stopped answering on an open connection: a channel RPC
 * (opening a channel, or checking an exchange for the first time on the connection; at most the
 * connect timeout) and handing a frame to the connection's write queue (at most about one second;
 * the client runs in NIO mode so that a broker that stops reading cannot block a publish forever).
 * The client's automatic recovery is off: after a connection or channel closed, the next publish
 * replaces it; a connection whose channels keep failing to be confirmed is replaced as well.
 *
 * <p>Defaults: exchange router {@link ExchangeRouter#byAggregateType()}, connection name {@value
 * #DEFAULT_CONNECTION_NAME}, exchanges not declared, connect timeout 5 s, close timeout 1 s.
 *
 * <p>Thread-safe: several threads may publish at once; each publish leases its own channel on the
 * one connection, so that a batch's delivery tags and its per-aggregate order stay its own.
 */
public final class RabbitTransport implements Transport {
  /** The default connection name, shown in RabbitMQ's management UI. */
  public static final String DEFAULT_CONNECTION_NAME = "tandem";

  /** How long each step of connecting and each channel RPC may take: 5 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * How long {@link #close()} waits for the broker to confirm the connection's close: 1 s. Sends in
   * flight are abandoned either way, as the {@link Transport} contract says.
   */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(1);

  private final ChannelPool pool;
  private final BatchPublisher publisher;
  private final Duration closeTimeout;

  private RabbitTransport(Builder b) {
    this.pool = new ChannelPool(b.uri, b.connectionName, b.connectTimeout);
    this.publisher =
        new BatchPublisher(
            pool, b.exchangeRouter, RabbitCloudEventsCodec.create(b.source), b.declareExchanges);
    this.closeTimeout = b.closeTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code rabbitmq}. */
  @Override
  public String name() {
    return "rabbitmq";
  }

  /**
   * Publishes every event and waits at most {@code timeout} for all confirms.
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
   * Closes the connection, waiting at most the close timeout for the broker; a publish still
   * waiting sees its unconfirmed events fail as retriable. Later publishes throw {@link
   * IllegalStateException}. Idempotent.
   */
  @Override
  public void close() {
    pool.close(closeTimeout);
  }

  /** Builds a {@link RabbitTransport}; {@code uri} and {@code source} are required. */
  public static final class Builder {
    private String uri;
    private String source;
    private ExchangeRouter exchangeRouter = ExchangeRouter.byAggregateType();
    private String connectionName = DEFAULT_CONNECTION_NAME;
    private boolean declareExchanges;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;

    private Builder() {}

    /**
     * The broker, as an AMQP URI: {@code amqp://user:password@host:5672/vhost} ({@code amqps://}
     * for TLS, checked against the JVM's trust store and the host name). Required.
     */
    public Builder uri(String uri) {
      this.uri = uri;
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

    /** Chooses each event's exchange; default {@link ExchangeRouter#byAggregateType()}. */
    public Builder exchangeRouter(ExchangeRouter exchangeRouter) {
      this.exchangeRouter = exchangeRouter;
      return this;
    }

    /**
     * The name RabbitMQ shows for the connection (management UI, {@code rabbitmqctl}); default
     * {@value #DEFAULT_CONNECTION_NAME}. Also names the client's threads.
     */
    public Builder connectionName(String connectionName) {
      this.connectionName = connectionName;
      return this;
    }

    /**
     * Whether the transport declares each exchange (durable, type {@code topic}) on first use;
     * default false, where it only checks that the exchange exists. Declaring suits development and
     * tests; in production, topology belongs to the operator.
     */
    public Builder declareExchanges(boolean declareExchanges) {
      this.declareExchanges = declareExchanges;
      return this;
    }

    /**
     * How long each step of connecting (the TCP connect, then the AMQP handshake) and each channel
     * RPC (opening a channel, checking an exchange) may take; default 5 s. Connecting is further
     * bounded by the publish's timeout: each step gets at most half of what is left of it.
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /** How long {@link #close()} waits for the broker; default 1 s. */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
      return this;
    }

    /**
     * Validates the settings; connects only on the first publish.
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     */
    public RabbitTransport build() {
      if (uri == null || uri.isBlank()) {
        throw new IllegalArgumentException(
            "uri must not be blank, e.g. \"amqp://guest:guest@localhost:5672/\"");
      }
      AmqpConnections.checkUri(uri);
      RabbitCloudEventsCodec.create(source); // validates source, naming it
      if (exchangeRouter == null) {
        throw new IllegalArgumentException("exchangeRouter must not be null");
      }
      if (connectionName == null || connectionName.isBlank()) {
        throw new IllegalArgumentException(
            "connectionName must not be blank, was '" + connectionName + "'");
      }
      if (connectTimeout == null
          || connectTimeout.isNegative()
          || connectTimeout.isZero()
          || connectTimeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "connectTimeout must be a positive duration of at most "
                + Integer.MAX_VALUE
                + " ms, was "
                + connectTimeout);
      }
      if (closeTimeout == null || closeTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "closeTimeout must be zero or positive, was " + closeTimeout);
      }
      return new RabbitTransport(this);
    }
  }
}
