package io.tandem.redis;

import io.tandem.core.InvalidMessageException;
import io.tandem.core.LagProbe;
import io.tandem.core.TandemException;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import io.tandem.redis.internal.ConsumerGroups;
import io.tandem.redis.internal.EntryAcknowledger;
import io.tandem.redis.internal.GroupLag;
import io.tandem.redis.internal.GroupReader;
import io.tandem.redis.internal.RedisConnections;
import io.tandem.redis.internal.StreamKeys;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

/**
 * Receives events from Redis Streams through a consumer group and hands them to a consumer runner:
 * the consumer side of {@link RedisStreamsTransport}.
 *
 * <pre>{@code
 * RedisStreamsMessageSource source = RedisStreamsMessageSource.builder()
 *     .uri("redis://127.0.0.1:6379")
 *     .streams("tandem:order")          // the transport's default stream of aggregate type Order
 *     .group("billing")
 *     .build();
 * // a consumer runner calls source.start(sink) and, when done, source.close()
 * }</pre>
 *
 * <p><b>Group.</b> {@link #start} creates the group on every stream if it does not exist, at the
 * stream's beginning ({@code XGROUP CREATE <stream> <group> 0 MKSTREAM}), so nothing published
 * before the first consumer ran is skipped. Sources with the same group share the entries: Redis
 * delivers each new entry to one of them.
 *
 * <p><b>Receiving.</b> The source's thread, {@code tandem-redis-source-<group>}, reads with {@code
 * XREADGROUP GROUP <group> <consumer> COUNT <batchSize> BLOCK <pollTimeout>} and hands the entries
 * to the sink one by one, in stream order. Each entry becomes a message whose key is its {@code
 * ce_partitionkey} (the aggregate id), origin {@code redis <stream> <entry id>}, raw headers every
 * field but {@code data}, raw body the {@code data} field; {@link RedisCloudEventsCodec} decodes it
 * and {@link InvalidMessageException} says what is wrong with an entry that is not a Tandem event.
 *
 * <p><b>Acknowledging.</b> A message's {@code acknowledge()} sends {@code XACK} on a pooled
 * connection, from whichever thread calls it; a failure is logged and ignored, and the entry stays
 * pending. Delivery is at least once: an entry is delivered again when it is not acknowledged
 * within {@link Builder#claimIdleAfter} (its consumer died, lost its connection, or was closed
 * before its runner finished it): every source of the group runs {@code XAUTOCLAIM} for entries
 * idle longer than that, every half of it, and hands what it claimed over. A source also re-reads
 * its consumer's own pending entries when it starts (which matters with a stable {@link
 * Builder#consumer} name). Entries delivered again are de-duplicated by the inbox; set {@code
 * claimIdleAfter} well above the longest time a message may wait in the runner and be handled, or
 * entries still being handled are delivered twice.
 *
 * <p><b>Back-pressure.</b> The source reads at most one batch ahead: while the sink blocks it reads
 * nothing. When the sink returns {@code false} the source stops reading and leaves that entry and
 * the rest of its batch pending.
 *
 * <p><b>Failures.</b> A lost connection or an error reply is logged, and the source retries after a
 * backoff (100 ms doubling up to 5 s), first re-reading its own pending entries, so that a batch
 * read but not handed over is not left waiting for {@code claimIdleAfter}. A group deleted while
 * the source runs ({@code NOGROUP}) is created again at the stream's start.
 *
 * <p>Defaults: batch size {@value #DEFAULT_BATCH_SIZE}, poll timeout {@value
 * #DEFAULT_POLL_TIMEOUT_MILLIS} ms, claim after {@value #DEFAULT_CLAIM_IDLE_AFTER_SECONDS} s idle,
 * consumer name {@code <host>-<pid>-<random>} (unique per source), {@value
 * #DEFAULT_MAX_CONNECTIONS} connections for acknowledgements, connect timeout {@value
 * #DEFAULT_CONNECT_TIMEOUT_MILLIS} ms, lag interval 5 s.
 *
 * <p>Thread-safe. {@link #close()} returns within about the poll timeout plus the connect timeout.
 */
public final class RedisStreamsMessageSource implements MessageSource {
  /** Entries read per {@code XREADGROUP}: the most read ahead of the runner. */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /** How long one {@code XREADGROUP} waits for new entries ({@code BLOCK}). */
  public static final long DEFAULT_POLL_TIMEOUT_MILLIS = 1000;

  /** How long an entry stays unacknowledged before any source of the group claims it. */
  public static final long DEFAULT_CLAIM_IDLE_AFTER_SECONDS = 30;

  /** The most pooled connections for acknowledgements. */
  public static final int DEFAULT_MAX_CONNECTIONS = 8;

  /** How long opening a connection may take at most; also the timeout of each command. */
  public static final long DEFAULT_CONNECT_TIMEOUT_MILLIS = 2000;

  private static final Logger LOG = LoggerFactory.getLogger(RedisStreamsMessageSource.class);
  private static final Duration CLOSE_MARGIN = Duration.ofMillis(500);

  private final GroupReader.Settings settings;
  private final boolean generatedConsumer;
  private final HostAndPort address;
  private final JedisClientConfig client;
  private final ConnectionPool pool;
  private final EntryAcknowledger acknowledger;
  private final Duration lagInterval;
  private GroupReader reader;
  private volatile LagProbe lag;
  private Thread thread;
  private boolean started;
  private boolean closed;

  private RedisStreamsMessageSource(Builder b, URI uri, List<String> streams) {
    this.generatedConsumer = b.consumer == null;
    this.settings =
        new GroupReader.Settings(
            streams,
            b.group,
            generatedConsumer ? uniqueConsumerName() : b.consumer,
            b.batchSize,
            b.pollTimeout,
            b.claimIdleAfter,
            b.connectTimeout);
    this.address = RedisConnections.address(uri);
    this.client = RedisConnections.clientConfig(uri, b.connectTimeout);
    this.pool = RedisConnections.pool(uri, client, b.maxConnections);
    this.acknowledger = new EntryAcknowledger(pool, b.group, b.connectTimeout);
    this.lagInterval = b.lagInterval;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code redis}. */
  @Override
  public String transport() {
    return "redis";
  }

  /** E.g. {@code group billing on tandem:order as consumer host-4242-1a2b3c4d}. */
  @Override
  public String describe() {
    return "group "
        + settings.group()
        + " on "
        + String.join(", ", settings.streams())
        + " as consumer "
        + settings.consumer();
  }

  /** The consumer name this source reads as. */
  public String consumer() {
    return settings.consumer();
  }

  /**
   * Creates the group where missing and starts the receiving thread.
   *
   * @throws TandemException if Redis cannot be reached or refuses to create the group (for example
   *     {@code WRONGTYPE}: a stream key holds something else)
   * @throws IllegalStateException if started before or closed
   */
  @Override
  public synchronized void start(MessageSink sink) {
    Objects.requireNonNull(sink, "sink must not be null");
    if (closed) {
      throw new IllegalStateException("RedisStreamsMessageSource is closed");
    }
    if (started) {
      throw new IllegalStateException("RedisStreamsMessageSource was started before");
    }
    started = true;
    createGroups();
    reader = new GroupReader(settings, this::openConnection, sink, acknowledger);
    thread = new Thread(reader, "tandem-redis-source-" + settings.group());
    thread.setDaemon(true);
    thread.start();
    lag = LagProbe.start("tandem-redis-lag-" + settings.group(), lagInterval, this::readLag);
    LOG.info("redis: consuming {}", describe());
  }

  /**
   * Entries of the group not processed yet, as of the last reading (every {@linkplain
   * Builder#lagInterval lag interval}, on the thread {@code tandem-redis-lag-<group>}): per stream,
   * {@code XINFO GROUPS}'s {@code lag} (entries not delivered to the group yet; Redis 7.0 and
   * later) plus {@code pending} (delivered to any consumer of the group and not acknowledged),
   * summed over the streams. Empty before the first reading, after a failed one, and when Redis
   * cannot tell (a server before 7.0; entries deleted from the middle of a stream). Never blocks.
   */
  @Override
  public OptionalLong lag() {
    LagProbe probe = lag;
    return probe == null ? OptionalLong.empty() : probe.last();
  }

  /** On the probe's thread: one {@code XINFO GROUPS} per stream on a pooled connection. */
  private OptionalLong readLag() {
    try (Connection connection = pool.getResource()) {
      return GroupLag.read(connection, settings.streams(), settings.group());
    }
  }

  private void createGroups() {
    for (String stream : settings.streams()) {
      try (Connection connection = openConnection()) {
        ConsumerGroups.create(connection, stream, settings.group());
      } catch (RuntimeException e) {
        throw new TandemException(
            "redis: cannot create consumer group "
                + settings.group()
                + " on stream "
                + stream
                + " at "
                + address
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  private Connection openConnection() {
    return new Connection(address, client);
  }

  @Override
  public synchronized boolean isRunning() {
    return !closed && reader != null && reader.running();
  }

  /**
   * Stops the receiving thread (waiting at most the poll timeout plus the connect timeout), removes
   * a generated consumer name from the group where it has nothing pending, and closes the
   * connections. Entries handed over and not acknowledged stay pending and are claimed by another
   * source of the group after {@code claimIdleAfter}; acknowledgements arriving after close are
   * ignored. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (lag != null) {
      lag.close();
    }
    boolean stopped = true;
    if (thread != null) {
      reader.stop();
      thread.interrupt();
      Duration bound = settings.pollTimeout().plus(settings.commandTimeout()).plus(CLOSE_MARGIN);
      try {
        thread.join(bound.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      stopped = !thread.isAlive();
      if (!stopped) {
        LOG.warn("redis: {}: the receiving thread did not stop within {}", describe(), bound);
      }
    }
    if (thread != null && stopped && generatedConsumer) {
      forgetConsumer();
    }
    pool.close();
  }

  /** Unique consumer names would pile up in the group; one with nothing pending can go. */
  private void forgetConsumer() {
    try (Connection connection = openConnection()) {
      int kept =
          ConsumerGroups.deleteConsumerIfIdle(
              connection, settings.streams(), settings.group(), settings.consumer());
      if (kept > 0) {
        LOG.info(
            "redis: {}: entries still pending on {} stream(s); another consumer will claim them",
            describe(),
            kept);
      }
    } catch (RuntimeException e) {
      LOG.info("redis: {}: could not remove the consumer name: {}", describe(), e.toString());
    }
  }

  private static String uniqueConsumerName() {
    String host;
    try {
      host = StreamKeys.sanitize(InetAddress.getLocalHost().getHostName());
    } catch (Exception e) {
      host = "host";
    }
    return host
        + "-"
        + ProcessHandle.current().pid()
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * Builds a {@link RedisStreamsMessageSource}; {@code uri}, {@code streams} and {@code group} are
   * required.
   */
  public static final class Builder {
    private String uri;
    private List<String> streams = List.of();
    private String group;
    private String consumer;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration pollTimeout = Duration.ofMillis(DEFAULT_POLL_TIMEOUT_MILLIS);
    private Duration claimIdleAfter = Duration.ofSeconds(DEFAULT_CLAIM_IDLE_AFTER_SECONDS);
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private Duration connectTimeout = Duration.ofMillis(DEFAULT_CONNECT_TIMEOUT_MILLIS);
    private Duration lagInterval = LagProbe.DEFAULT_INTERVAL;

    private Builder() {}

    /**
     * How often the source asks Redis for the group's lag ({@code XINFO GROUPS}), for {@link
     * RedisStreamsMessageSource#lag()}; default 5 s.
     */
    public Builder lagInterval(Duration lagInterval) {
      this.lagInterval = lagInterval;
      return this;
    }

    /**
     * The server, e.g. {@code "redis://127.0.0.1:6379"}; {@code rediss://} for TLS, credentials and
     * database as {@code redis://user:password@host:6379/2}. Required.
     */
    public Builder uri(String uri) {
      this.uri = uri;
      return this;
    }

    /**
     * The stream keys to read, e.g. {@code "tandem:order"} (see {@link StreamRouter} for the keys
     * the transport writes to). At least one is required.
     */
    public Builder streams(String... streams) {
      this.streams = streams == null ? null : Arrays.asList(streams);
      return this;
    }

    /** As {@link #streams(String...)}. */
    public Builder streams(List<String> streams) {
      this.streams = streams;
      return this;
    }

    /** The consumer group, e.g. the consuming service's name {@code billing}. Required. */
    public Builder group(String group) {
      this.group = group;
      return this;
    }

    /**
     * The consumer name within the group. Default: {@code <host>-<pid>-<random>}, unique per
     * source, removed from the group on close when nothing of it is pending. A stable name (a pod
     * name) lets a restarted process re-read its own pending entries at once instead of waiting for
     * {@code claimIdleAfter}; never give two running sources the same name.
     */
    public Builder consumer(String consumer) {
      this.consumer = consumer;
      return this;
    }

    /**
     * Entries read per {@code XREADGROUP} and claimed per {@code XAUTOCLAIM}, 1 to 10000; default
     * {@value #DEFAULT_BATCH_SIZE}.
     */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /**
     * How long one {@code XREADGROUP} blocks waiting for new entries, 1 ms to 60 s; default {@value
     * #DEFAULT_POLL_TIMEOUT_MILLIS} ms. Bounds how long {@link #close()} takes.
     */
    public Builder pollTimeout(Duration pollTimeout) {
      this.pollTimeout = pollTimeout;
      return this;
    }

    /**
     * How long an entry may stay delivered and unacknowledged before a source of the group claims
     * it and delivers it again, 10 ms to 24 h; default {@value #DEFAULT_CLAIM_IDLE_AFTER_SECONDS}
     * s.
     */
    public Builder claimIdleAfter(Duration claimIdleAfter) {
      this.claimIdleAfter = claimIdleAfter;
      return this;
    }

    /**
     * The most pooled connections for acknowledgements, 1 to 1024; default {@value
     * #DEFAULT_MAX_CONNECTIONS}. Each acknowledgement in progress holds one.
     */
    public Builder maxConnections(int maxConnections) {
      this.maxConnections = maxConnections;
      return this;
    }

    /**
     * How long opening a connection may take at most, 1 ms to 60 s; default {@value
     * #DEFAULT_CONNECT_TIMEOUT_MILLIS} ms. Also bounds each command's reply (beyond the poll
     * timeout for {@code XREADGROUP}).
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
    public RedisStreamsMessageSource build() {
      URI parsed = RedisConnections.parseUri(uri);
      if (streams == null || streams.isEmpty()) {
        throw new IllegalArgumentException(
            "streams must name at least one stream key, e.g. \"tandem:order\"");
      }
      List<String> keys = new ArrayList<>();
      for (String stream : streams) {
        StreamKeys.validate("stream", stream);
        if (keys.contains(stream)) {
          throw new IllegalArgumentException("streams names '" + stream + "' twice");
        }
        keys.add(stream);
      }
      StreamKeys.validate("group", group);
      if (consumer != null) {
        StreamKeys.validate("consumer", consumer);
      }
      if (batchSize < 1 || batchSize > 10_000) {
        throw new IllegalArgumentException(
            "batchSize must be between 1 and 10000, was " + batchSize);
      }
      RedisConnections.validateTimeout("pollTimeout", pollTimeout);
      if (claimIdleAfter == null
          || claimIdleAfter.toMillis() < 10
          || claimIdleAfter.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException(
            "claimIdleAfter must be between 10 ms and 24 h, was " + claimIdleAfter);
      }
      if (maxConnections < 1 || maxConnections > 1024) {
        throw new IllegalArgumentException(
            "maxConnections must be between 1 and 1024, was " + maxConnections);
      }
      RedisConnections.validateTimeout("connectTimeout", connectTimeout);
      LagProbe.checkInterval("lagInterval", lagInterval);
      return new RedisStreamsMessageSource(this, parsed, List.copyOf(keys));
    }
  }
}
