package io.tandem.redis.internal;

import java.time.Duration;
import java.util.Set;
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
  private final Set<EntryKey> inFlight = ConcurrentHashMap.newKeySet();

  public EntryAcknowledger(ConnectionPool pool, String group, Duration borrowTimeout) {
    this.pool = pool;
    this.group = group;
    this.borrowTimeout = borrowTimeout;
  }

  /** Remembers that {@code entry} was handed over; false if it already was and is not settled. */
  public boolean handOver(EntryKey entry) {
    return inFlight.add(entry);
  }

  /** Forgets an entry whose hand-over failed or was refused: it stays pending at the broker. */
  public void forget(EntryKey entry) {
    inFlight.remove(entry);
  }

  /** Whether {@code entry} is handed over and not settled yet. */
  public boolean isInFlight(EntryKey entry) {
    return inFlight.contains(entry);
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
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn(notAcknowledged(entry, "interrupted"));
    } catch (Exception e) {
      if (pool.isClosed()) {
        LOG.info(notAcknowledged(entry, "the source is closed"));
      } else {
        LOG.warn(notAcknowledged(entry, e.toString()), e);
      }
    } finally {
      inFlight.remove(entry);
    }
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
