package io.tandem.redis.internal;

import io.tandem.core.spi.MessageSink;
import io.tandem.redis.RedisCloudEventsCodec;
import io.tandem.redis.internal.EntryAcknowledger.EntryKey;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.XAutoClaimParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * The receiving loop of a {@code RedisStreamsMessageSource}; runs on the source's thread and owns
 * its connection. Each step does one of three things, in this priority:
 *
 * <ol>
 *   <li>re-read this consumer's own pending entries ({@code XREADGROUP ... 0}): at start, and after
 *       any failure, since a batch read but not handed over stays pending for this consumer;
 *   <li>claim entries idle longer than {@code claimIdleAfter} ({@code XAUTOCLAIM}), one pass over
 *       the group's pending list every half of that: how a dead consumer's entries come back;
 *   <li>read new entries ({@code XREADGROUP ... BLOCK ... >}).
 * </ol>
 *
 * Entries are handed to the sink one by one; a blocking sink stops the loop, so at most one batch
 * is read ahead. An entry handed over and not acknowledged is never handed over again by this
 * reader, whether re-read or claimed, nor is one acknowledged while the read returning it was under
 * way (see {@link EntryAcknowledger}).
 */
public final class GroupReader implements Runnable {
  private static final Logger LOG =
      LoggerFactory.getLogger("io.tandem.redis.RedisStreamsMessageSource");
  private static final StreamEntryID START = new StreamEntryID(0, 0);
  private static final long MAX_BACKOFF_MILLIS = 5000;

  /** What the loop reads and how; all values already validated. */
  public record Settings(
      List<String> streams,
      String group,
      String consumer,
      int batchSize,
      Duration pollTimeout,
      Duration claimIdleAfter,
      Duration commandTimeout) {}

  private final Settings settings;
  private final Supplier<Connection> connector;
  private final MessageSink sink;
  private final EntryAcknowledger acknowledger;
  private final RedisCloudEventsCodec codec = RedisCloudEventsCodec.create();
  private final CommandObjects commands = new CommandObjects();
  private final Map<String, StreamEntryID> ownPending = new LinkedHashMap<>();
  private final Map<String, StreamEntryID> claimCursors = new LinkedHashMap<>();
  private final long claimIntervalNanos;
  private long nextClaimAt = System.nanoTime();
  private volatile Connection connection;
  private volatile boolean stopping;
  private volatile boolean running = true;

  /**
   * @param connector opens a new, dedicated (not pooled) connection
   */
  public GroupReader(
      Settings settings,
      Supplier<Connection> connector,
      MessageSink sink,
      EntryAcknowledger acknowledger) {
    this.settings = settings;
    this.connector = connector;
    this.sink = sink;
    this.acknowledger = acknowledger;
    this.claimIntervalNanos = Math.max(1, settings.claimIdleAfter().toNanos() / 2);
    rereadOwnPending();
  }

  /**
   * Asks the loop to end; breaks a blocking read by closing the connection. Any thread. The owner
   * also interrupts the thread, to end a blocked hand-over or a backoff.
   */
  public void stop() {
    stopping = true;
    Connection c = connection;
    if (c != null) {
      try {
        c.disconnect();
      } catch (RuntimeException e) {
        LOG.debug("redis: closing the reading connection failed", e);
      }
    }
  }

  /** False once the loop has ended: stopped, refused by the sink, or interrupted. */
  public boolean running() {
    return running;
  }

  @Override
  public void run() {
    int failures = 0;
    try {
      while (!stopping) {
        try {
          if (!step()) {
            return;
          }
          failures = 0;
        } catch (RuntimeException e) {
          if (stopping) {
            return;
          }
          failures++;
          onFailure(e, failures);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // close() ended a blocked hand-over or a backoff
    } finally {
      discardConnection();
      running = false;
      LOG.debug("redis: group {}: consumer {} stopped", settings.group(), settings.consumer());
    }
  }

  /** One read, claim or re-read and its hand-over; false when the sink refused a message. */
  private boolean step() throws InterruptedException {
    Connection c = connection();
    if (claimCursors.isEmpty() && System.nanoTime() - nextClaimAt >= 0) {
      settings.streams().forEach(stream -> claimCursors.put(stream, START));
    }
    if (ownPending.isEmpty() && claimCursors.isEmpty()) {
      return readNew(c);
    }
    acknowledger.pendingReadStarts();
    try {
      return ownPending.isEmpty() ? claim(c) : readOwnPending(c);
    } finally {
      acknowledger.pendingReadEnded();
    }
  }

  private boolean readOwnPending(Connection c) throws InterruptedException {
    XReadGroupParams params = XReadGroupParams.xReadGroupParams().count(settings.batchSize());
    List<Map.Entry<String, List<StreamEntry>>> result =
        c.executeCommand(
            commands.xreadGroup(
                settings.group(), settings.consumer(), params, new LinkedHashMap<>(ownPending)));
    Map<String, List<StreamEntry>> byStream = new LinkedHashMap<>();
    if (result != null) {
      result.forEach(e -> byStream.put(e.getKey(), e.getValue()));
    }
    for (String stream : List.copyOf(ownPending.keySet())) {
      List<StreamEntry> entries = byStream.get(stream);
      if (entries == null || entries.isEmpty()) {
        ownPending.remove(stream);
        continue;
      }
      for (StreamEntry entry : entries) {
        ownPending.put(stream, entry.getID());
        if (!handOver(c, stream, entry)) {
          return false;
        }
      }
    }
    return true;
  }

  private boolean claim(Connection c) throws InterruptedException {
    long minIdle = settings.claimIdleAfter().toMillis();
    XAutoClaimParams params = XAutoClaimParams.xAutoClaimParams().count(settings.batchSize());
    for (String stream : List.copyOf(claimCursors.keySet())) {
      Map.Entry<StreamEntryID, List<StreamEntry>> page =
          c.executeCommand(
              commands.xautoclaim(
                  stream,
                  settings.group(),
                  settings.consumer(),
                  minIdle,
                  claimCursors.get(stream),
                  params));
      StreamEntryID next = page.getKey();
      if (next == null || START.equals(next)) {
        claimCursors.remove(stream);
      } else {
        claimCursors.put(stream, next);
      }
      List<StreamEntry> entries = page.getValue() == null ? List.of() : page.getValue();
      int handedOver = 0;
      for (StreamEntry entry : entries) {
        // entries this reader handed over and that are not acknowledged yet are claimed too (only
        // resetting their idle time); they are not handed over again
        boolean fresh =
            entry != null
                && entry.getFields() != null
                && !acknowledger.isHandedOver(new EntryKey(stream, entry.getID()));
        if (!handOver(c, stream, entry)) {
          return false;
        }
        handedOver += fresh ? 1 : 0;
      }
      if (handedOver > 0) {
        LOG.info(
            "redis: group {}: consumer {} claimed {} entries of {} unacknowledged for more than {}",
            settings.group(),
            settings.consumer(),
            handedOver,
            stream,
            settings.claimIdleAfter());
      }
    }
    if (claimCursors.isEmpty()) {
      nextClaimAt = System.nanoTime() + claimIntervalNanos;
    }
    return true;
  }

  private boolean readNew(Connection c) throws InterruptedException {
    long untilClaim = Math.max(1, (nextClaimAt - System.nanoTime()) / 1_000_000);
    int block = (int) Math.min(settings.pollTimeout().toMillis(), untilClaim);
    XReadGroupParams params =
        XReadGroupParams.xReadGroupParams().count(settings.batchSize()).block(block);
    Map<String, StreamEntryID> streams = new LinkedHashMap<>();
    settings.streams().forEach(s -> streams.put(s, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
    List<Map.Entry<String, List<StreamEntry>>> result =
        RedisConnections.executeBlocking(
            c,
            commands.xreadGroup(settings.group(), settings.consumer(), params, streams),
            settings.commandTimeout().plusMillis(block));
    if (result == null) {
      return true; // nothing new within the block time
    }
    for (Map.Entry<String, List<StreamEntry>> stream : result) {
      for (StreamEntry entry : stream.getValue()) {
        if (!handOver(c, stream.getKey(), entry)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Hands {@code entry} to the sink unless it is already in flight; false if refused. */
  private boolean handOver(Connection c, String stream, StreamEntry entry)
      throws InterruptedException {
    if (entry == null) {
      return true;
    }
    EntryKey key = new EntryKey(stream, entry.getID());
    if (entry.getFields() == null) {
      // deleted from the stream (trimmed) while pending: nothing to deliver, only to settle
      c.executeCommand(commands.xack(stream, settings.group(), entry.getID()));
      return true;
    }
    if (!acknowledger.handOver(key)) {
      return true; // handed over before and not acknowledged yet: the runner has it
    }
    boolean accepted = false;
    try {
      accepted = sink.accept(new StreamEntryMessage(stream, entry, codec, acknowledger));
    } finally {
      if (!accepted) {
        acknowledger.forget(key); // stays pending, delivered again
      }
    }
    if (!accepted) {
      LOG.info(
          "redis: group {}: the consumer runner stopped taking entries; consumer {} stops reading",
          settings.group(),
          settings.consumer());
    }
    return accepted;
  }

  private void onFailure(RuntimeException e, int failures) throws InterruptedException {
    long backoff = Math.min(MAX_BACKOFF_MILLIS, 100L << Math.min(failures - 1, 6));
    if (e instanceof JedisConnectionException) {
      discardConnection();
    }
    if (e instanceof JedisDataException data && ConsumerGroups.isNoGroup(data)) {
      LOG.warn(
          "redis: group {} is missing on one of {}; creating it again at the stream's start",
          settings.group(),
          settings.streams());
      try {
        Connection c = connection();
        settings.streams().forEach(stream -> ConsumerGroups.create(c, stream, settings.group()));
      } catch (RuntimeException again) {
        e.addSuppressed(again);
      }
    }
    String message = "redis: group {}: consumer {} failed ({} in a row), retrying in {} ms: {}";
    if (failures == 1) {
      LOG.warn(message, settings.group(), settings.consumer(), failures, backoff, e.toString(), e);
    } else {
      LOG.warn(message, settings.group(), settings.consumer(), failures, backoff, e.toString());
    }
    rereadOwnPending(); // a batch read but not handed over is pending for this consumer
    Thread.sleep(backoff);
  }

  private void rereadOwnPending() {
    settings.streams().forEach(stream -> ownPending.put(stream, START));
  }

  private Connection connection() {
    Connection c = connection;
    if (c == null || c.isBroken()) {
      discardConnection();
      c = connector.get();
      connection = c;
    }
    return c;
  }

  private void discardConnection() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.debug("redis: closing the reading connection failed", e);
      }
    }
  }
}
