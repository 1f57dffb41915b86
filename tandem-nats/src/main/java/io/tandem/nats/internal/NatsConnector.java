package io.tandem.nats.internal;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the connection lazily, on the first publish that needs one, and again after jnats gave a
 * connection up for closed. Opening never takes longer than the caller's deadline: the connect
 * timeout is cut to the time left, and a publish that finds another thread connecting waits for it
 * only until its own deadline.
 *
 * <p>Once open, jnats reconnects by itself for as long as the transport lives, and refuses
 * publishes while it is reconnecting (no reconnect buffer), so that a publish fails at once rather
 * than queueing messages that would be sent after its deadline.
 */
public final class NatsConnector implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NatsConnector.class);
  private static final Duration MIN_CONNECT_TIMEOUT = Duration.ofMillis(50);
  private static final int STREAM_NOT_FOUND = 10059;
  private static final int STREAM_NAME_IN_USE = 10058;

  private final String servers;
  private final String connectionName;
  private final Duration connectTimeout;
  private final Consumer<Options.Builder> customizer;
  private final StreamSetup stream;
  private final ReentrantLock connecting = new ReentrantLock();
  private volatile NatsSession current; // written under connecting
  private volatile boolean closed;

  /**
   * @param connectionName the name the server shows for the connection
   * @param stream the stream to create when it is missing, or null
   */
  public NatsConnector(
      String servers,
      String connectionName,
      Duration connectTimeout,
      Consumer<Options.Builder> customizer,
      StreamSetup stream) {
    this.servers = servers;
    this.connectionName = connectionName;
    this.connectTimeout = connectTimeout;
    this.customizer = customizer;
    this.stream = stream;
  }

  /** Builds the options once without connecting, so that a bad URL fails at build time. */
  public void checkOptions() {
    options(connectTimeout, new NatsSession());
  }

  public boolean closed() {
    return closed;
  }

  /**
   * The open session, opening one if there is none or jnats closed it.
   *
   * @param deadlineNanos a {@link System#nanoTime()} after which to give up
   * @throws IllegalStateException if the connector is closed
   * @throws TimeoutException if another thread is still connecting at the deadline
   * @throws IOException if no server accepted the connection
   * @throws JetStreamApiException if the stream could not be created
   */
  public NatsSession acquire(long deadlineNanos)
      throws IOException, InterruptedException, TimeoutException, JetStreamApiException {
    NatsSession session = current;
    if (usable(session)) {
      return session;
    }
    long wait = deadlineNanos - System.nanoTime();
    if (!connecting.tryLock(Math.max(0, wait), TimeUnit.NANOSECONDS)) {
      throw new TimeoutException("another publish is still connecting to NATS");
    }
    try {
      session = current;
      if (usable(session)) {
        return session;
      }
      if (closed) {
        throw new IllegalStateException("the NATS connection is closed");
      }
      session = open(deadlineNanos);
      current = session;
      return session;
    } finally {
      connecting.unlock();
    }
  }

  /** Closes the connection; publishes in flight see their acks fail. Idempotent. */
  @Override
  public void close() {
    close(Duration.ZERO);
  }

  /**
   * Closes the connection after waiting at most {@code flushTimeout} for what is queued to be
   * written (acknowledgements just sent), if it is connected. Idempotent.
   */
  public void close(Duration flushTimeout) {
    closed = true;
    NatsSession last = current;
    current = null;
    if (last == null) {
      return;
    }
    if (!flushTimeout.isZero() && last.connected()) {
      try {
        last.connection().flush(flushTimeout);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (TimeoutException | RuntimeException e) {
        LOG.debug("flushing the NATS connection before closing failed: {}", e.toString());
      }
    }
    last.closing();
    closeQuietly(last.connection());
  }

  /**
   * {@code servers} with every credential (password, token) replaced by {@code ***}, for messages.
   */
  public static String redact(String servers) {
    return io.tandem.core.Redaction.redact(servers);
  }

  private boolean usable(NatsSession session) {
    if (closed) {
      throw new IllegalStateException("the NATS connection is closed");
    }
    return session != null && session.connection().getStatus() != Connection.Status.CLOSED;
  }

  private NatsSession open(long deadlineNanos)
      throws IOException, InterruptedException, TimeoutException, JetStreamApiException {
    Duration left = Duration.ofNanos(deadlineNanos - System.nanoTime());
    if (left.compareTo(MIN_CONNECT_TIMEOUT) < 0) {
      throw new TimeoutException("no time left to connect to NATS");
    }
    NatsSession session = new NatsSession();
    Duration timeout = left.compareTo(connectTimeout) < 0 ? left : connectTimeout;
    Connection connection = Nats.connect(options(timeout, session));
    try {
      session.attach(connection, connection.jetStream());
      if (stream != null) {
        ensureStream(connection, deadlineNanos);
      }
      return session;
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  private Options options(Duration timeout, NatsSession session) {
    Options.Builder builder = new Options.Builder();
    customizer.accept(builder);
    return builder
        .server(servers)
        .connectionName(connectionName)
        .connectionTimeout(timeout)
        .maxReconnects(-1)
        .reconnectBufferSize(0)
        .connectionListener(session)
        .errorListener(session)
        .build();
  }

  private void ensureStream(Connection connection, long deadlineNanos)
      throws IOException, JetStreamApiException, TimeoutException {
    Duration left = Duration.ofNanos(deadlineNanos - System.nanoTime());
    if (left.compareTo(MIN_CONNECT_TIMEOUT) < 0) {
      throw new TimeoutException("no time left to look up stream " + stream.name());
    }
    JetStreamManagement jsm =
        connection.jetStreamManagement(JetStreamOptions.builder().requestTimeout(left).build());
    try {
      jsm.getStreamInfo(stream.name());
      return;
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != STREAM_NOT_FOUND) {
        throw e;
      }
    }
    try {
      jsm.addStream(
          StreamConfiguration.builder()
              .name(stream.name())
              .subjects(stream.subjects())
              .storageType(StorageType.File)
              .duplicateWindow(stream.duplicateWindow())
              .replicas(stream.replicas())
              .build());
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() == STREAM_NAME_IN_USE) {
        return; // another instance created it in the meantime, with its own settings
      }
      throw e;
    }
    LOG.info(
        "created JetStream stream {} for subjects {} (file storage, {} replica(s), duplicate window"
            + " {})",
        stream.name(),
        stream.subjects(),
        stream.replicas(),
        stream.duplicateWindow());
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.debug("closing the NATS connection failed: {}", e.toString());
    }
  }
}
