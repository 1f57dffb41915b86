package io.tandem.redis.internal;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.redis.RedisCloudEventsCodec;
import io.tandem.redis.StreamRouter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.XAddParams;

/**
 * Publishes one batch over one pooled connection: one pipeline of {@code XADD} commands (auto id),
 * optionally followed by {@code WAIT}, then one read of all replies with the socket timeout set to
 * the time left. An event is acknowledged when its {@code XADD} returned an entry id (and, with
 * {@code WAIT}, enough replicas confirmed).
 */
public final class PipelinePublisher {
  private final ConnectionPool pool;
  private final StreamRouter router;
  private final RedisCloudEventsCodec codec;
  private final long maxLength;
  private final int replicas;

  /**
   * @param maxLength approximate trimming of every stream to about this many entries; 0 for none
   * @param replicas the replicas {@code WAIT} must confirm; 0 for no {@code WAIT}
   */
  public PipelinePublisher(
      ConnectionPool pool,
      StreamRouter router,
      RedisCloudEventsCodec codec,
      long maxLength,
      int replicas) {
    this.pool = pool;
    this.router = router;
    this.codec = codec;
    this.maxLength = maxLength;
    this.replicas = replicas;
  }

  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Connection connection;
    try {
      connection = pool.borrowObject(timeout);
      connection.setHandlingPool(pool);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return failAll(events, ErrorClass.TIMEOUT, "interrupted while connecting", e);
    } catch (Exception e) {
      if (pool.isClosed()) {
        throw new IllegalStateException("RedisStreamsTransport is closed", e);
      }
      ErrorClass errorClass = RedisErrors.classifyConnect(e);
      return failAll(events, errorClass, "cannot get a Redis connection", e);
    }
    try {
      return publish(connection, events, timeout, deadline);
    } finally {
      if (!connection.isBroken()) {
        connection.rollbackTimeout();
      }
      connection.close(); // back to the pool, or destroyed if broken
    }
  }

  private List<PublishOutcome> publish(
      Connection connection, List<Event> events, Duration timeout, long deadline) {
    int size = events.size();
    String[] keys = new String[size];
    PublishOutcome[] outcomes = new PublishOutcome[size];
    List<Response<StreamEntryID>> responses = new ArrayList<>(size);
    Response<Long> confirmed = null;
    XAddParams params = XAddParams.xAddParams();
    if (maxLength > 0) {
      params.maxLen(maxLength).approximateTrimming();
    }
    try {
      Pipeline pipeline = new Pipeline(connection);
      for (int i = 0; i < size; i++) {
        Event event = events.get(i);
        Map<String, String> fields;
        try {
          keys[i] = StreamKeys.validate("stream key", router.streamFor(event));
        } catch (RuntimeException e) {
          outcomes[i] =
              failed(event, null, ErrorClass.UNROUTABLE, "no stream: " + e.getMessage(), e);
          responses.add(null);
          continue;
        }
        try {
          fields = codec.encode(event);
        } catch (RuntimeException e) {
          outcomes[i] = failed(event, keys[i], ErrorClass.SERIALIZATION, e.getMessage(), e);
          responses.add(null);
          continue;
        }
        responses.add(pipeline.xadd(keys[i], params, fields));
      }
      long left = millisLeft(deadline);
      if (replicas > 0) {
        confirmed = pipeline.waitReplicas(replicas, Math.max(1, left * 3 / 4));
      }
      connection.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, left)));
      pipeline.sync();
    } catch (JedisConnectionException e) {
      connection.setBroken();
      ErrorClass errorClass = RedisErrors.classifyConnectionFailure(e);
      String why =
          errorClass == ErrorClass.TIMEOUT
              ? "no reply within " + timeout
              : "the connection failed: " + e.getMessage();
      return complete(events, keys, outcomes, errorClass, why, e);
    } catch (RuntimeException e) {
      connection.setBroken(); // replies may be left unread
      return complete(events, keys, outcomes, ErrorClass.UNKNOWN, e.toString(), e);
    }
    Long replicasConfirmed = null;
    String waitFailure = null;
    if (confirmed != null) {
      try {
        replicasConfirmed = confirmed.get();
      } catch (JedisDataException e) {
        replicasConfirmed = 0L;
        waitFailure = e.getMessage();
      }
    }
    for (int i = 0; i < size; i++) {
      if (outcomes[i] != null) {
        continue;
      }
      Event event = events.get(i);
      try {
        StreamEntryID id = responses.get(i).get();
        if (id == null) {
          outcomes[i] = failed(event, keys[i], ErrorClass.UNKNOWN, "XADD returned no id", null);
        } else if (replicasConfirmed != null && replicasConfirmed < replicas) {
          String why =
              waitFailure != null
                  ? "entry " + id + " added, but WAIT failed: " + waitFailure
                  : "entry "
                      + id
                      + " reached "
                      + replicasConfirmed
                      + " of "
                      + replicas
                      + " replicas within the timeout";
          outcomes[i] = failed(event, keys[i], ErrorClass.NOT_ENOUGH_REPLICAS, why, null);
        } else {
          outcomes[i] = PublishOutcome.acknowledged(event.eventId());
        }
      } catch (JedisDataException e) {
        ErrorClass errorClass = RedisErrors.classifyReply(e.getMessage());
        outcomes[i] = failed(event, keys[i], errorClass, e.getMessage(), e);
      }
    }
    return List.of(outcomes);
  }

  private static List<PublishOutcome> complete(
      List<Event> events,
      String[] keys,
      PublishOutcome[] outcomes,
      ErrorClass errorClass,
      String why,
      Throwable cause) {
    for (int i = 0; i < outcomes.length; i++) {
      if (outcomes[i] == null) {
        outcomes[i] = failed(events.get(i), keys[i], errorClass, why, cause);
      }
    }
    return List.of(outcomes);
  }

  private static long millisLeft(long deadline) {
    return Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
  }

  private static PublishOutcome failed(
      Event event, String key, ErrorClass errorClass, String why, Throwable cause) {
    String where = key == null ? null : "stream " + key;
    return PublishOutcome.failed(
        event.eventId(),
        PublishException.forEvent("redis", errorClass, event.eventId(), where, why, cause));
  }

  private static List<PublishOutcome> failAll(
      List<Event> events, ErrorClass errorClass, String why, Throwable cause) {
    List<PublishOutcome> outcomes = new ArrayList<>(events.size());
    for (Event event : events) {
      outcomes.add(failed(event, null, errorClass, why + ": " + cause, cause));
    }
    return outcomes;
  }
}
