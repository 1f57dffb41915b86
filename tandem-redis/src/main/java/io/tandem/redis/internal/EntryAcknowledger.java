package io.tandem.redis.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.StreamEntryID;

/**
 * Settles entries with {@code XACK} on pooled connections, from any thread, and remembers which
 * entries are handed over and not settled yet, so that the reader does not hand one over twice when
 * it re-reads or claims its own pending entries.
 */
public final class EntryAcknowledger {
  private static final Logger LOG =
      LoggerFactory.getLogger("io.tandem.redis.RedisStreamsMessageSource");

  /** One entry of one stream. */
  public record EntryKey(String stream, StreamEntryID id) {}

  private final ConnectionPool pool;
  private final String group;
  private final Duration borrowTimeout;
  private final CommandObjects commands = new CommandObjects();

  /** Handed over: TRUE until settled; FALSE once settled during a pending read. */
  private final Map<EntryKey, Boolean> handedOver = new ConcurrentHashMap<>();

  private volatile boolean readingPending;

  public EntryAcknowledger(ConnectionPool pool, String group, Duration borrowTimeout) {
    this.pool = pool;
    this.group = group;
    this.borrowTimeout = borrowTimeout;
  }

  /**
   * Remembers that {@code entry} is handed over; false if it was before and is not settled yet, or
   * was settled during the pending read under way.
   */
  public boolean handOver(EntryKey entry) {
    return handedOver.putIfAbsent(entry, Boolean.TRUE) == null;
  }

  /** Whether {@link #handOver} would refuse {@code entry}. */
  public boolean isHandedOver(EntryKey entry) {
    return handedOver.containsKey(entry);
  }

  /** Forgets an entry whose hand-over failed or was refused: it stays pending at the broker. */
  public void forget(EntryKey entry) {
    handedOver.remove(entry);
  }

  /** Called before sending a read of pending entries ({@code XAUTOCLAIM}, {@code XREADGROUP 0}). */
  public void pendingReadStarts() {
    readingPending = true;
  }

  /** Called once the reply of a read of pending entries was handled. */
  public void pendingReadEnded() {
    readingPending = false;
    handedOver.values().removeIf(inFlight -> !inFlight);
  }

  /**
   * {@code XACK}s {@code entry}; never throws. A failure is logged and ignored: the entry stays
   * pending and is delivered again once it is claimed.
   */
  public void acknowledge(EntryKey entry) {
    try {
      Connection connection = pool.borrowObject(borrowTimeout);
      connection.setHandlingPool(pool);
      try (connection) {
        connection.executeCommand(commands.xack(entry.stream(), group, entry.id()));
      }
      if (readingPending) {
        handedOver.put(entry, Boolean.FALSE); // the read's reply may still hold it
      } else {
        handedOver.remove(entry); // acknowledged before any later read was sent
      }
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn(notAcknowledged(entry, "interrupted"));
    } catch (Exception e) {
      if (pool.isClosed()) {
        LOG.info(notAcknowledged(entry, "the source is closed"));
      } else {
        LOG.warn(notAcknowledged(entry, e.toString()), e);
      }
    }
    handedOver.remove(entry); // still pending: may be delivered again
  }

  private String notAcknowledged(EntryKey entry, String why) {
    return "redis: group "
        + group
        + ": XACK of "
        + entry.stream()
        + " "
        + entry.id()
        + " failed ("
        + why
        + "); the entry stays pending and will be delivered again";
  }
}
