package io.tandem.rabbitmq.internal;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ExceptionHandler;
import com.rabbitmq.client.SslEngineConfigurators;
import com.rabbitmq.client.impl.ForgivingExceptionHandler;
import com.rabbitmq.client.impl.nio.NioParams;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the transport and the message source configure their connections: the AMQP URI (TLS with the
 * JVM's trust store), no automatic recovery, bounded timeouts, NIO mode with a bounded write queue,
 * named daemon threads, and the password kept out of messages.
 */
public final class AmqpConnections {
  private static final Logger LOG = LoggerFactory.getLogger(AmqpConnections.class);

  /** How long handing a frame to a full write queue may block before the write fails. */
  static final int WRITE_ENQUEUE_TIMEOUT_MS = 1000;

  private static final int WRITE_QUEUE_CAPACITY = 20_000;

  /**
   * The client logs a dropped connection at ERROR with a stack trace; the transport and the source
   * log it once as a WARN instead, and the affected work carries the cause.
   */
  private static final ExceptionHandler QUIET_DRIVER_ERRORS =
      new ForgivingExceptionHandler() {
        @Override
        public void handleUnexpectedConnectionDriverException(Connection conn, Throwable e) {
          LOG.debug("RabbitMQ connection driver error: {}", e.toString());
        }
      };

  private AmqpConnections() {}

  /**
   * Checks that {@code uri} is an AMQP URI the client accepts, without connecting.
   *
   * @throws IllegalArgumentException naming the URI (password hidden) and what is wrong
   */
  public static void checkUri(String uri) {
    try {
      configure(new ConnectionFactory(), uri);
    } catch (URISyntaxException | IllegalArgumentException | GeneralSecurityException e) {
      // No cause: its message would show the password.
      throw new IllegalArgumentException(
          "uri '"
              + redact(uri)
              + "' is not an AMQP URI (amqp://user:password@host:5672/vhost): "
              + redact(e.getMessage()));
    }
  }

  /** The TLS versions an {@code amqps} connection offers (see {@link #factory}). */
  static final String[] TLS_PROTOCOLS = {"TLSv1.2"};

  /** {@code uri} with its password replaced by {@code ***}, for messages and logs. */
  public static String redact(String uri) {
    return io.tandem.core.Redaction.redact(uri);
  }

  /**
   * A connection factory for {@code uri}: automatic recovery off, TCP connect and handshake each
   * bounded by {@code connectMillis}, channel RPCs by {@code rpcMillis}.
   */
  // NIO mode is deprecated in amqp-client 5.x in favour of its Netty mode, which needs Netty on the
  // class path. It is kept because its bounded write queue is what keeps a write from blocking on a
  // broker that stops reading; the blocking-socket mode has no write timeout at all.
  @SuppressWarnings("deprecation")
  public static ConnectionFactory factory(
      String uri, ThreadFactory threads, int connectMillis, int rpcMillis)
      throws URISyntaxException, GeneralSecurityException {
    ConnectionFactory factory = new ConnectionFactory();
    configure(factory, uri);
    factory.setAutomaticRecoveryEnabled(false);
    factory.setTopologyRecoveryEnabled(false);
    factory.setConnectionTimeout(connectMillis);
    factory.setHandshakeTimeout(connectMillis);
    factory.setChannelRpcTimeout(rpcMillis);
    factory.setThreadFactory(threads);
    factory.setExceptionHandler(QUIET_DRIVER_ERRORS);
    factory.useNio();
    NioParams nio =
        new NioParams()
            .setThreadFactory(threads)
            .setWriteQueueCapacity(WRITE_QUEUE_CAPACITY)
            .setWriteEnqueuingTimeoutInMs(WRITE_ENQUEUE_TIMEOUT_MS);
    if (factory.isSSL()) {
      // These NioParams replace the ones enableHostnameVerification() configured: say it again.
      // NIO mode reads TLS 1.3 records wrongly ("Bad frame end marker: 0", TlsBrokerUrlsTest in
      // tandem-cli): offer TLS 1.2, which every RabbitMQ with TLS accepts.
      nio.setSslEngineConfigurator(
          SslEngineConfigurators.enableHostnameVerification()
              .andThen(engine -> engine.setEnabledProtocols(TLS_PROTOCOLS)));
    }
    factory.setNioParams(nio);
    return factory;
  }

  /** Daemon threads named {@code tandem-rabbitmq-<connectionName>-<n>}. */
  public static ThreadFactory threads(String connectionName) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread =
          new Thread(runnable, "tandem-rabbitmq-" + connectionName + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * Applies {@code uri}; for {@code amqps} with the JVM's trust store and host name checks. An
   * empty vhost ({@code amqp://host:5672/}, which the AMQP URI spec reads as the vhost named "")
   * means the default vhost {@code /}: RabbitMQ has no vhost without a name.
   */
  private static void configure(ConnectionFactory factory, String uri)
      throws URISyntaxException, GeneralSecurityException {
    URI parsed = new URI(uri);
    boolean tls = "amqps".equalsIgnoreCase(parsed.getScheme());
    // The client's own amqps handling trusts every certificate; configure TLS here instead.
    factory.setUri(tls ? "amqp" + uri.substring("amqps".length()) : uri);
    if (factory.getVirtualHost().isEmpty()) {
      factory.setVirtualHost("/");
    }
    if (tls) {
      if (parsed.getPort() == -1) {
        factory.setPort(ConnectionFactory.DEFAULT_AMQP_OVER_SSL_PORT);
      }
      factory.useSslProtocol(SSLContext.getDefault());
      factory.enableHostnameVerification();
    }
  }
}
