package io.tandem.nats.internal;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open connection and what its listeners observed: how often it was disconnected, and which
 * subjects the server refused to let it publish to. A refused publish is reported by the server
 * only asynchronously ({@code -ERR 'Permissions Violation for Publish to "x"'}); its ack never
 * comes, so the publisher looks here to tell an authorization failure from a timeout.
 */
public final class NatsSession implements ConnectionListener, ErrorListener {
  private static final Logger LOG = LoggerFactory.getLogger(NatsSession.class);
  private static final Pattern PUBLISH_VIOLATION =
      Pattern.compile("(?i)permissions violation for publish to \"?([^\"\\s]+)\"?");
  private static final int MAX_REMEMBERED_VIOLATIONS = 1024;

  private final AtomicLong disconnects = new AtomicLong();
  private final Map<String, Long> violations = new ConcurrentHashMap<>();
  private volatile Connection connection;
  private volatile JetStream jetStream;
  private volatile boolean closing;
  private final AtomicBoolean down = new AtomicBoolean(); // jnats reports one loss twice

  void attach(Connection connection, JetStream jetStream) {
    this.connection = connection;
    this.jetStream = jetStream;
  }

  public Connection connection() {
    return connection;
  }

  public JetStream jetStream() {
    return jetStream;
  }

  /** Whether the connection is up now (not reconnecting, not closed). */
  public boolean connected() {
    return connection.getStatus() == Connection.Status.CONNECTED;
  }

  /** How often the connection was lost so far; compare two readings to see a loss in between. */
  public long disconnects() {
    return disconnects.get();
  }

  /** Tells the listeners that the transport itself is closing the connection. */
  void closing() {
    closing = true;
  }

  /** Whether the server refused a publish to {@code subject} at or after {@code sinceNanos}. */
  public boolean publishRefused(String subject, long sinceNanos) {
    Long at = violations.get(subject);
    return at != null && at - sinceNanos >= 0;
  }

  /** Required by the interface, but jnats calls the four-argument variant below. */
  @Override
  @Deprecated
  public void connectionEvent(Connection conn, Events type) {
    connectionEvent(conn, type, null, null);
  }

  @Override
  public void connectionEvent(Connection conn, Events type, Long time, String uriDetails) {
    if (closing || connection == null) {
      return; // closed by the transport, or an initial connect that failed and is reported so
    }
    if (type == Events.DISCONNECTED) {
      disconnects.incrementAndGet();
      if (down.compareAndSet(false, true)) {
        LOG.warn("NATS connection lost; reconnecting to {}", conn.getServers());
      }
    } else if (type == Events.RECONNECTED) {
      down.set(false);
      LOG.info("NATS connection re-established ({})", conn.getConnectedUrl());
    } else if (type == Events.LAME_DUCK) {
      LOG.info("NATS server {} entered lame duck mode", conn.getConnectedUrl());
    }
  }

  @Override
  public void errorOccurred(Connection conn, String error) {
    Matcher m = PUBLISH_VIOLATION.matcher(error == null ? "" : error);
    if (m.find()) {
      if (violations.size() >= MAX_REMEMBERED_VIOLATIONS) {
        violations.clear();
      }
      violations.put(m.group(1), System.nanoTime());
    }
    LOG.warn("NATS server error: {}", error);
  }

  @Override
  public void exceptionOccurred(Connection conn, Exception exp) {
    LOG.debug("NATS client exception: {}", exp.toString());
  }
}
