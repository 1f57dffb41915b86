package io.tandem.redis;

import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.redis.internal.PipelinePublisher;
import io.tandem.redis.internal.RedisConnections;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.ConnectionPool;

/**
 * Publishes events to Redis Streams: one {@code XADD} (auto id {@code *}) per event into the stream
 * its {@link StreamRouter} chooses ({@code tandem:order} by default), as CloudEvents 1.0 in binary
 * content mode (see {@link RedisCloudEventsCodec}).
 *
 * <pre>{@code
 * try (RedisStreamsTransport redis = RedisStreamsTransport.builder()
 *     .uri("redis://127.0.0.1:6379")
 *     .source("/tandem/orders-service")
 *     .build()) {
 *   List<PublishOutcome> outcomes = redis.publish(events, Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p><b>Durability is only what the Redis server's persistence gives.</b> An event counts as
 * acknowledged when its {@code XADD} returned an entry id, which means that the entry is in the
 * server's memory, not that it is on disk or on a replica. With AOF and {@code appendfsync always}
 * an acknowledged entry survives a crash; with {@code appendfsync everysec} (Redis's AOF default)
 * up to about a second of acknowledged entries can be lost; with RDB snapshots only, everything
 * since the last snapshot; with no persistence at all (as the test machine's Redis runs), <em>an
 * acknowledged event is lost on any Redis restart</em>, and the outbox has already marked it
 * published. {@link Builder#waitForReplicas} adds {@code WAIT}, so that an event counts only once
 * that many replicas have it. Use this transport where that trade-off is acceptable, or run Redis
 * with AOF {@code appendfsync always} and {@code maxmemory-policy noeviction}.
 *
 * <p>{@link #publish} sends the whole batch as one pipeline on one pooled connection and reads all
 * replies once, with the socket timeout set to the time left. Redis runs every command of a
 * pipeline on its own, so one failing {@code XADD} does not affect the others. Failures are
 * classified: {@code WRONGTYPE} (the key holds something other than a stream) and an illegal key
 * are {@code UNROUTABLE} (permanent); {@code OOM}/{@code maxmemory}, {@code MISCONF}, {@code
 * READONLY}, {@code LOADING}, {@code BUSY} are {@code TRANSIENT}; {@code NOAUTH}, {@code NOPERM},
 * {@code WRONGPASS} are {@code AUTHORIZATION}; an unreachable server is {@code BROKER_UNAVAILABLE},
 * a connection that broke while sending or reading is {@code CONNECTION_LOST}, replies that did not
 * come in time are {@code TIMEOUT}; other error replies are {@code UNKNOWN} (permanent). After a
 * lost connection or a timeout some entries may have been added all the same: the relay publishes
 * them again, and consumers de-duplicate by event id.
 *
 * <p><b>Connecting.</b> {@link Builder#build()} checks the settings but does not connect;
 * connections are opened by the publishes that need them, at most {@link Builder#maxConnections} at
 * once. A publish waits for a free connection no longer than its timeout; opening a new one may
 * take up to the {@linkplain Builder#connectTimeout connect timeout}, which is why it is short.
 *
 * <p>Defaults: stream router {@link StreamRouter#byAggregateType()}, no trimming (streams are never
 * trimmed unless {@link Builder#maxLength} is set), no {@code WAIT}, {@value
 * #DEFAULT_MAX_CONNECTIONS} connections, connect timeout {@value #DEFAULT_CONNECT_TIMEOUT_MILLIS}
 * ms.
 *
 * <p>Thread-safe: each publish borrows its own connection from the pool. {@link #close()} returns
 * promptly.
 */
public final class RedisStreamsTransport implements Transport {
  /** The most connections open at once, and so the most publishes running at once. */
  public static final int DEFAULT_MAX_CONNECTIONS = 8;

  /** How long opening a connection may take at most. */
  public static final long DEFAULT_CONNECT_TIMEOUT_MILLIS = 2000;

  private final ConnectionPool pool;
  private final PipelinePublisher publisher;

  private RedisStreamsTransport(Builder b, URI uri, RedisCloudEventsCodec codec) {
    // the client's socket timeout (the connect timeout) bounds the handshake; publishes set their
    // own
    this.pool =
        RedisConnections.pool(
            uri, RedisConnections.clientConfig(uri, b.connectTimeout), b.maxConnections);
    this.publisher =
        new PipelinePublisher(pool, b.streamRouter, codec, b.maxLength, b.waitForReplicas);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code redis}. */
  @Override
  public String name() {
    return "redis";
  }

  /**
   * Publishes every event and waits at most {@code timeout} for all replies (plus, at worst, the
   * connect timeout when a new connection must be opened).
   *
   * @return one outcome per event, in the order of {@code events}
   * @throws IllegalStateException if this transport is closed
   */
  @Override
  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    Transport.checkPublishArguments(events, timeout);
    if (pool.isClosed()) {
      throw new IllegalStateException("RedisStreamsTransport is closed");
    }
    if (events.isEmpty()) {
      return List.of();
    }
    return publisher.publish(events, timeout);
  }

  /**
   * Closes the idle connections and the pool; a publish still running finishes on its connection,
   * which is then closed. Later publishes throw {@link IllegalStateException}. Idempotent.
   */
  @Override
  public void close() {
    pool.close();
  }

  /** Builds a {@link RedisStreamsTransport}; {@code uri} and {@code source} are required. */
  public static final class Builder {
    private String uri;
    private String source;
    private StreamRouter streamRouter = StreamRouter.byAggregateType();
    private long maxLength;
    private int waitForReplicas;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private Duration connectTimeout = Duration.ofMillis(DEFAULT_CONNECT_TIMEOUT_MILLIS);

    private Builder() {}

    /**
     * The server, e.g. {@code "redis://127.0.0.1:6379"}; {@code rediss://} for TLS, credentials and
     * database as {@code redis://user:password@host:6379/2}. Required.
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

    /** Chooses each event's stream; default {@link StreamRouter#byAggregateType()}. */
    public Builder streamRouter(StreamRouter streamRouter) {
      this.streamRouter = streamRouter;
      return this;
    }

    /**
     * Trims every stream written to about {@code maxLength} entries ({@code XADD MAXLEN ~}).
     * Default: no trimming, ever. Trimming deletes the oldest entries whether or not every consumer
     * group has read them: set it only above the longest backlog a consumer may have.
     */
    public Builder maxLength(long maxLength) {
      this.maxLength = maxLength;
      return this;
    }

    /**
     * Sends {@code WAIT replicas} after the batch: an event then counts as acknowledged only once
     * that many replicas confirmed it within the publish timeout (else it fails as {@code
     * NOT_ENOUGH_REPLICAS}, retriable). Default 0: no {@code WAIT}.
     */
    public Builder waitForReplicas(int replicas) {
      this.waitForReplicas = replicas;
      return this;
    }

    /**
     * The most connections open at once, 1 to 1024; default {@value #DEFAULT_MAX_CONNECTIONS}. Each
     * running publish holds one.
     */
    public Builder maxConnections(int maxConnections) {
      this.maxConnections = maxConnections;
      return this;
    }

    /**
     * How long opening a connection may take at most, 1 ms to 60 s; default {@value
     * #DEFAULT_CONNECT_TIMEOUT_MILLIS} ms.
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Validates the settings and creates the connection pool (which does not connect yet).
     *
     * @throws IllegalArgumentException naming the first parameter that is missing or invalid
     */
    public RedisStreamsTransport build() {
      URI parsed = RedisConnections.parseUri(uri);
      RedisCloudEventsCodec codec = RedisCloudEventsCodec.create(source); // validates source
      if (streamRouter == null) {
        throw new IllegalArgumentException("streamRouter must not be null");
      }
      if (maxLength < 0) {
        throw new IllegalArgumentException(
            "maxLength must be positive (or 0 for no trimming), was " + maxLength);
      }
      if (waitForReplicas < 0) {
        throw new IllegalArgumentException(
            "waitForReplicas must be 0 or more, was " + waitForReplicas);
      }
      if (maxConnections < 1 || maxConnections > 1024) {
        throw new IllegalArgumentException(
            "maxConnections must be between 1 and 1024, was " + maxConnections);
      }
      RedisConnections.validateTimeout("connectTimeout", connectTimeout);
      return new RedisStreamsTransport(this, parsed, codec);
    }
  }
}
