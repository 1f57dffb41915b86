package io.tandem.jdbc.internal;

import io.tandem.jdbc.InsertNotifications;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection in LISTEN on a channel and calls back on every notification. Reconnects
 * after a failure; the caller keeps polling as a fallback, so a lost notification only delays.
 *
 * <p>{@link #setListening(boolean) Switched off}, it sends {@code UNLISTEN} on its connection (the
 * server then no longer signals this session at each notifying commit) and waits; switched on, it
 * sends {@code LISTEN} and calls back once at once, since rows may have committed while it was not
 * listening. Every statement runs on the listener's own thread, the only user of its connection.
 */
public final class PostgresNotificationListener implements InsertNotifications, Runnable {
  private static final Logger log = LoggerFactory.getLogger(PostgresNotificationListener.class);
  private static final Pattern CHANNEL = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final int WAIT_MILLIS = 500;

  private final DataSource dataSource;
  private final String channel;
  private final SwitchHook onSwitch;
  private final Runnable onNotify;
  private final Duration reconnectDelay;
  private final Thread thread;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition switched = lock.newCondition();
  private volatile boolean running = true;
  private volatile boolean wanted = true;

  /**
   * Runs on the listener's connection, in auto-commit, before each LISTEN and after each UNLISTEN:
   * where the listener records whether it listens (the outbox trigger notifies only then).
   */
  @FunctionalInterface
  public interface SwitchHook {
    void switched(Connection connection, boolean listening) throws SQLException;
  }

  private PostgresNotificationListener(
      DataSource dataSource,
      String channel,
      SwitchHook onSwitch,
      Runnable onNotify,
      Duration reconnectDelay) {
    if (!CHANNEL.matcher(channel).matches()) {
      throw new IllegalArgumentException("channel '" + channel + "' is not a plain identifier");
    }
    this.dataSource = dataSource;
    this.channel = channel;
    this.onSwitch = onSwitch;
    this.onNotify = onNotify;
    this.reconnectDelay = reconnectDelay;
    this.thread = new Thread(this, "tandem-listen-" + channel);
    this.thread.setDaemon(true);
  }

  /**
   * Starts listening on {@code channel} on a daemon thread, with {@code onSwitch} at each switch.
   */
  public static PostgresNotificationListener start(
      DataSource dataSource,
      String channel,
      SwitchHook onSwitch,
      Runnable onNotify,
      Duration reconnectDelay) {
    PostgresNotificationListener listener =
        new PostgresNotificationListener(dataSource, channel, onSwitch, onNotify, reconnectDelay);
    listener.thread.start();
    return listener;
  }

  @Override
  public void setListening(boolean listening) {
    if (wanted == listening) {
      return;
    }
    lock.lock();
    try {
      wanted = listening;
      switched.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isListening() {
    return wanted;
  }

  @Override
  public void run() {
    while (running) {
      try (Connection c = dataSource.getConnection()) {
        PGConnection pg = c.unwrap(PGConnection.class);
        boolean listening = false;
        while (running) {
          boolean want = wanted;
          if (want != listening) {
            if (want) {
              recordSwitch(c, true);
            }
            try (Statement s = c.createStatement()) {
              s.execute((want ? "LISTEN " : "UNLISTEN ") + channel); // channel checked above
            }
            if (!want) {
              recordSwitch(c, false);
            }
            listening = want;
            if (listening) {
              onNotify.run(); // rows may have committed while we were not listening
            } else {
              pg.getNotifications(); // drop what arrived before the UNLISTEN took effect
            }
          }
          if (listening) {
            PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
            if (notifications != null && notifications.length > 0) {
              onNotify.run();
            }
          } else {
            awaitSwitch();
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

  private void recordSwitch(Connection c, boolean on) {
    try {
      onSwitch.switched(c, on);
    } catch (SQLException e) {
      // Notifications still work; only the writers' saving is lost while this fails.
      log.warn(
          "LISTEN {}: could not record that this listener is {} ({}); is the schema migrated?",
          channel,
          on ? "on" : "off",
          e.getMessage());
    }
  }

  /** Waits, off, until switched on or closed (or a while, to check the connection again). */
  private void awaitSwitch() {
    lock.lock();
    try {
      if (!wanted && running) {
        switched.await(WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    } finally {
      lock.unlock();
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
