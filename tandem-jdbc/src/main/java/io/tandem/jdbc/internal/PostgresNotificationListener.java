package io.tandem.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection in LISTEN on a channel and calls back on every notification. Reconnects
 * after a failure; the caller keeps polling as a fallback, so a lost notification only delays.
 */
public final class PostgresNotificationListener implements AutoCloseable, Runnable {
  private static final Logger log = LoggerFactory.getLogger(PostgresNotificationListener.class);
  private static final Pattern CHANNEL = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final int WAIT_MILLIS = 500;

  private final DataSource dataSource;
  private final String channel;
  private final Runnable onNotify;
  private final Duration reconnectDelay;
  private final Thread thread;
  private volatile boolean running = true;

  private PostgresNotificationListener(
      DataSource dataSource, String channel, Runnable onNotify, Duration reconnectDelay) {
    if (!CHANNEL.matcher(channel).matches()) {
      throw new IllegalArgumentException("channel '" + channel + "' is not a plain identifier");
    }
    this.dataSource = dataSource;
    this.channel = channel;
    this.onNotify = onNotify;
    this.reconnectDelay = reconnectDelay;
    this.thread = new Thread(this, "tandem-listen-" + channel);
    this.thread.setDaemon(true);
  }

  /** Starts listening on {@code channel} on a daemon thread. */
  public static PostgresNotificationListener start(
      DataSource dataSource, String channel, Runnable onNotify, Duration reconnectDelay) {
    PostgresNotificationListener listener =
        new PostgresNotificationListener(dataSource, channel, onNotify, reconnectDelay);
    listener.thread.start();
    return listener;
  }

  @Override
  public void run() {
    while (running) {
      try (Connection c = dataSource.getConnection()) {
        PGConnection pg = c.unwrap(PGConnection.class);
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + channel); // channel validated as an identifier above
        }
        onNotify.run(); // rows may have committed while we were not listening
        while (running) {
          PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
          if (notifications != null && notifications.length > 0) {
            onNotify.run();
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (running) {
          log.warn(
              "LISTEN {} failed, reconnecting in {} ms: {}",
              channel,
              reconnectDelay.toMillis(),
              e.getMessage());
          sleep();
        }
      }
    }
  }

  private void sleep() {
    try {
      Thread.sleep(reconnectDelay.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(WAIT_MILLIS * 4L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
