package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.tandem.core.ErrorClass;
import java.io.IOException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's one connection and its confirm-mode channels, each leased to one publish at a
 * time (a channel is not thread-safe, and its delivery tags must belong to one batch).
 *
 * <p>The connection is opened on the first publish and replaced by the next publish once it has
 * closed; the client's automatic recovery is off, because a recovered channel restarts its delivery
 * tags. Every wait is bounded: the TCP connect and the AMQP handshake each by half the publish's
 * remaining time (and at most the connect timeout), channel RPCs (open, confirm.select, exchange
 * checks) by the connect timeout, and writes by the NIO write queue, whose enqueueing gives up
 * after {@value AmqpConnections#WRITE_ENQUEUE_TIMEOUT_MS} ms instead of blocking while the broker
 * stops reading (for example during a resource alarm).
 */
public final class ChannelPool {
  private static final Logger LOG = LoggerFactory.getLogger(ChannelPool.class);

  /** Idle channels still awaiting confirms (or broken) from which on the connection is replaced. */
  static final int MAX_STALE_CHANNELS = 4;

  private static final int MAX_ABORT_WAIT_MS = 1000;

  private final String uri;
  private final String connectionName;
  private final Duration connectTimeout;
  private final ThreadFactory threads;
  private final ReentrantLock lock = new ReentrantLock(); // serializes acquirers, not releases
  private volatile Session session;
  private volatile boolean closed;

  public ChannelPool(String uri, String connectionName, Duration connectTimeout) {
    this.uri = uri;
    this.connectionName = connectionName;
    this.connectTimeout = connectTimeout;
    this.threads = AmqpConnections.threads(connectionName);
  }

  /**
   * Leases a reusable channel, opening the connection or a channel if needed.
   *
   * @param deadlineNanos a {@link System#nanoTime()} by which to give up
   * @throws Unavailable classified, when no channel can be had in time
   * @throws IllegalStateException if the pool is closed
   */
  public Lease acquire(long deadlineNanos) throws Unavailable {
    checkOpen();
    try {
      long wait = deadlineNanos - System.nanoTime();
      if (wait <= 0) {
        throw new Unavailable(
            ErrorClass.TIMEOUT, "not published: the deadline passed before publishing", null);
      }
      if (!lock.tryLock(wait, TimeUnit.NANOSECONDS)) {
        throw new Unavailable(
            ErrorClass.TIMEOUT,
            "not published: another publish was connecting to RabbitMQ until the deadline",
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unavailable(ErrorClass.TIMEOUT, "interrupted while waiting for a channel", e);
    }
    try {
      checkOpen();
      Session current = session;
      if (current == null || !current.connection.isOpen()) {
        current = connect(deadlineNanos);
      }
      PublisherChannel channel = current.leaseIdle();
      if (channel == null) {
        if (current.staleChannels() >= MAX_STALE_CHANNELS) {
          LOG.warn(
              "RabbitMQ connection {}: {} channels still await confirms; replacing the connection",
              connectionName,
              current.staleChannels());
          abort(current, deadlineNanos);
          current = connect(deadlineNanos);
        }
        channel = openChannel(current, deadlineNanos);
      }
      return new Lease(current, channel);
    } finally {
      lock.unlock();
    }
  }

  /** Returns a leased channel; it is reused once everything published on it is settled. */
  public void release(Lease lease) {
    if (lease.channel.settled()) {
      lease.channel.attach(null); // nothing more can arrive for the batch: let it go
    }
    lease.channel.inUse(false);
  }

  /**
   * Closes the connection, waiting at most {@code timeout} for the broker's close-ok; publishes in
   * flight see their unconfirmed events fail as retriable. Idempotent; never throws.
   */
  public void close(Duration timeout) {
    closed = true;
    Session last = session;
    if (last != null) {
      last.connection.abort((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("RabbitTransport is closed");
    }
  }

  private Session connect(long deadlineNanos) throws Unavailable {
    long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    if (remainingMillis <= 0) {
      throw new Unavailable(ErrorClass.TIMEOUT, "the deadline passed before connecting", null);
    }
    // The TCP connect and the AMQP handshake have a timeout each: give each half of what is left.
    int timeout = (int) Math.max(1, Math.min(connectTimeout.toMillis(), remainingMillis / 2));
    Connection connection;
    try {
      connection = factory(timeout).newConnection(connectionName);
    } catch (IOException | TimeoutException | RuntimeException e) {
      throw new Unavailable(
          RabbitErrors.classifyConnect(e),
          "cannot connect to "
              + AmqpConnections.redact(uri)
              + " within "
              + timeout
              + " ms: "
              + AmqpConnections.redact(e.toString()),
          e);
    } catch (URISyntaxException | GeneralSecurityException e) {
      throw new Unavailable(ErrorClass.UNKNOWN, "cannot configure the connection: " + e, e);
    }
    Session fresh = new Session(connection);
    connection.addBlockedListener(fresh);
    connection.addShutdownListener(
        sse -> {
          if (!sse.isInitiatedByApplication()) {
            LOG.warn(
                "RabbitMQ connection {} closed: {}", connectionName, RabbitErrors.replyText(sse));
          }
        });
    session = fresh;
    if (closed) { // close() ran meanwhile and may have missed this connection
      connection.abort(1);
      throw new IllegalStateException("RabbitTransport is closed");
    }
    return fresh;
  }

  private PublisherChannel openChannel(Session current, long deadlineNanos) throws Unavailable {
    try {
      PublisherChannel channel = PublisherChannel.open(current.connection);
      channel.inUse(true);
      current.channels.add(channel);
      return channel;
    } catch (IOException | RuntimeException e) {
      // A broker that does not open a channel on a live connection is not healthy: start afresh.
      abort(current, deadlineNanos);
      ErrorClass errorClass = RabbitErrors.classify(e);
      throw new Unavailable(
          errorClass == ErrorClass.UNKNOWN ? ErrorClass.TRANSIENT : errorClass,
          "cannot open a channel: " + e,
          e);
    }
  }

  private void abort(Session current, long deadlineNanos) {
    long remaining = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    current.connection.abort((int) Math.max(1, Math.min(MAX_ABORT_WAIT_MS, remaining)));
    if (session == current) {
      session = null;
    }
  }

  private ConnectionFactory factory(int timeoutMillis)
      throws URISyntaxException, GeneralSecurityException {
    return AmqpConnections.factory(uri, threads, timeoutMillis, (int) connectTimeout.toMillis());
  }

  /** One connection, its channels, the exchanges verified on it and the broker's blocking. */
  static final class Session implements BlockedListener {
    private final Connection connection;
    private final List<PublisherChannel> channels = new CopyOnWriteArrayList<>();
    private final Set<String> verifiedExchanges = ConcurrentHashMap.newKeySet();
    private volatile String blockedReason;

    Session(Connection connection) {
      this.connection = connection;
    }

    /** An idle reusable channel, now leased; null if there is none. Drops closed channels. */
    PublisherChannel leaseIdle() {
      channels.removeIf(c -> !c.inUse() && !c.channel().isOpen());
      for (PublisherChannel channel : channels) {
        if (!channel.inUse() && channel.reusable()) {
          channel.inUse(true);
          return channel;
        }
      }
      return null;
    }

    long staleChannels() {
      return channels.stream().filter(c -> !c.inUse() && !c.reusable()).count();
    }

    @Override
    public void handleBlocked(String reason) {
      blockedReason = reason == null || reason.isBlank() ? "no reason given" : reason;
      LOG.warn("RabbitMQ blocks publishing on this connection: {}", blockedReason);
    }

    @Override
    public void handleUnblocked() {
      blockedReason = null;
      LOG.info("RabbitMQ unblocked publishing on this connection");
    }
  }

  /** A channel leased to one publish, with the connection-wide state the publish consults. */
  public static final class Lease {
    private final Session session;
    private final PublisherChannel channel;

    Lease(Session session, PublisherChannel channel) {
      this.session = session;
      this.channel = channel;
    }

    public PublisherChannel channel() {
      return channel;
    }

    /** Why the broker blocks publishing on this connection (a resource alarm), if it does. */
    public Optional<String> blocked() {
      return Optional.ofNullable(session.blockedReason);
    }

    public boolean verified(String exchange) {
      return session.verifiedExchanges.contains(exchange);
    }

    public void markVerified(String exchange) {
      session.verifiedExchanges.add(exchange);
    }

    /** Closes the connection at once; its channels' unconfirmed events fail as retriable. */
    public void abortConnection() {
      session.connection.abort(100);
    }

    /** Forgets that {@code exchange} exists, so that the next publish checks it again. */
    public void forget(String exchange) {
      session.verifiedExchanges.remove(exchange);
    }
  }

  /** No channel could be had; {@link #errorClass()} says why. */
  public static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;
    private final ErrorClass errorClass;

    Unavailable(ErrorClass errorClass, String message, Throwable cause) {
      super(message, cause);
      this.errorClass = errorClass;
    }

    public ErrorClass errorClass() {
      return errorClass;
    }
  }
}
