package io.tandem.redis.internal;

import io.tandem.core.ErrorClass;
import java.net.SocketTimeoutException;
import java.util.Locale;
import java.util.NoSuchElementException;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/** Maps Jedis exceptions and Redis error replies onto Tandem's {@link ErrorClass}es. */
public final class RedisErrors {
  private RedisErrors() {}

  /**
   * The class of an error reply to one command (the first word of a Redis error is its code):
   * {@code WRONGTYPE} is {@link ErrorClass#UNROUTABLE} (the key holds something other than a
   * stream); {@code OOM}, {@code MISCONF}, {@code READONLY}, {@code LOADING}, {@code BUSY}, {@code
   * TRYAGAIN}, {@code CLUSTERDOWN}, {@code MASTERDOWN} are {@link ErrorClass#TRANSIENT}; {@code
   * NOAUTH}, {@code NOPERM}, {@code WRONGPASS} are {@link ErrorClass#AUTHORIZATION}; the rest is
   * {@link ErrorClass#UNKNOWN}.
   */
  public static ErrorClass classifyReply(String message) {
    String code = message == null ? "" : message.strip().split("\\s", 2)[0];
    return switch (code.toUpperCase(Locale.ROOT)) {
      case "WRONGTYPE" -> ErrorClass.UNROUTABLE;
      case "OOM",
          "MISCONF",
          "READONLY",
          "LOADING",
          "BUSY",
          "TRYAGAIN",
          "CLUSTERDOWN",
          "MASTERDOWN",
          "NOREPLICAS" ->
          ErrorClass.TRANSIENT;
      case "NOAUTH", "NOPERM", "WRONGPASS" -> ErrorClass.AUTHORIZATION;
      default ->
          message != null && message.contains("maxmemory")
              ? ErrorClass.TRANSIENT
              : ErrorClass.UNKNOWN;
    };
  }

  /**
   * The class of a failure to obtain a connection: refused credentials are {@link
   * ErrorClass#AUTHORIZATION}, no free connection within the time left is {@link
   * ErrorClass#TIMEOUT}, an error reply during the handshake is classified as a reply, and anything
   * else means the server could not be reached: {@link ErrorClass#BROKER_UNAVAILABLE}.
   */
  public static ErrorClass classifyConnect(Throwable failure) {
    if (failure instanceof NoSuchElementException) {
      return ErrorClass.TIMEOUT; // the pool had no connection to lend within the time left
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof JedisAccessControlException) {
        return ErrorClass.AUTHORIZATION;
      }
      if (t instanceof JedisDataException data && !(t instanceof JedisBusyException)) {
        ErrorClass c = classifyReply(data.getMessage());
        if (c != ErrorClass.UNKNOWN) {
          return c;
        }
      }
    }
    return ErrorClass.BROKER_UNAVAILABLE;
  }

  /**
   * The class of a failure of an established connection while the batch was sent or its replies
   * read: {@link ErrorClass#TIMEOUT} when the replies did not come in time, {@link
   * ErrorClass#CONNECTION_LOST} otherwise (reset, broken pipe, closed by the server).
   */
  public static ErrorClass classifyConnectionFailure(JedisConnectionException failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SocketTimeoutException) {
        return ErrorClass.TIMEOUT;
      }
    }
    return ErrorClass.CONNECTION_LOST;
  }
}
