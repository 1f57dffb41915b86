package io.tandem.redis.internal;

import io.tandem.core.Redaction;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * How the transport and the source connect: one server URI format, one client configuration, one
 * pool configuration.
 */
public final class RedisConnections {
  private RedisConnections() {}

  /**
   * Parses and checks a {@code redis://} or {@code rediss://} URI.
   *
   * @throws IllegalArgumentException naming parameter {@code uri}, the value and what is wrong
   */
  public static URI parseUri(String uri) {
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("uri must not be blank, e.g. \"redis://127.0.0.1:6379\"");
    }
    URI parsed;
    try {
      parsed = new URI(uri);
    } catch (URISyntaxException e) {
      // No cause: URISyntaxException's message quotes the whole input, password included.
      throw new IllegalArgumentException(
          "uri '" + Redaction.redact(uri) + "' is not a URI: " + Redaction.redact(e.getMessage()));
    }
    if (!JedisURIHelper.isRedisScheme(parsed) && !JedisURIHelper.isRedisSSLScheme(parsed)) {
      throw new IllegalArgumentException(
          "uri '"
              + Redaction.redact(uri)
              + "' must start with redis:// or rediss://, e.g. redis://127.0.0.1:6379");
    }
    if (parsed.getHost() == null) {
      throw new IllegalArgumentException(
          "uri '" + Redaction.redact(uri) + "' must name a host, e.g. redis://127.0.0.1:6379");
    }
    try {
      JedisURIHelper.getDBIndex(parsed);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "uri '"
              + Redaction.redact(uri)
              + "' does not end with a database number: "
              + Redaction.redact(e.getMessage()));
    }
    return parsed;
  }

  /**
   * Checks that {@code timeout} lies between 1 ms and 60 s.
   *
   * @throws IllegalArgumentException naming {@code parameter} and the value
   */
  public static Duration validateTimeout(String parameter, Duration timeout) {
    if (timeout == null
        || timeout.toMillis() < 1
        || timeout.compareTo(Duration.ofSeconds(60)) > 0) {
      throw new IllegalArgumentException(
          parameter + " must be between 1 ms and 60 s, was " + timeout);
    }
    return timeout;
  }

  /**
   * The client settings for {@code uri}: credentials, database and TLS from the URI; the connect
   * timeout also bounds the handshake and is each connection's default socket timeout.
   */
  public static JedisClientConfig clientConfig(URI uri, Duration connectTimeout) {
    int connectMillis = (int) connectTimeout.toMillis();
    DefaultJedisClientConfig.Builder client =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(connectMillis)
            .socketTimeoutMillis(connectMillis)
            .clientName("tandem")
            .database(JedisURIHelper.getDBIndex(uri))
            .ssl(JedisURIHelper.isRedisSSLScheme(uri));
    if (JedisURIHelper.getPassword(uri) != null) {
      client.user(JedisURIHelper.getUser(uri)).password(JedisURIHelper.getPassword(uri));
    }
    return client.build();
  }

  /** The server address of {@code uri}. */
  public static HostAndPort address(URI uri) {
    return JedisURIHelper.getHostAndPort(uri);
  }

  /**
   * A pool of at most {@code maxConnections} connections, opened lazily and checked with {@code
   * PING} when borrowed, so that one left stale by a Redis restart is replaced.
   */
  public static ConnectionPool pool(URI uri, JedisClientConfig client, int maxConnections) {
    ConnectionPoolConfig poolConfig = new ConnectionPoolConfig();
    poolConfig.setMaxTotal(maxConnections);
    poolConfig.setMaxIdle(maxConnections);
    poolConfig.setMinIdle(0);
    poolConfig.setTestOnBorrow(true);
    poolConfig.setJmxEnabled(false);
    return new ConnectionPool(address(uri), client, poolConfig);
  }

  /**
   * Runs a blocking command ({@code XREADGROUP ... BLOCK}) with the socket timeout {@code
   * readTimeout} instead of Jedis's infinite one, so that a silently dead server cannot hang the
   * caller.
   */
  public static <T> T executeBlocking(
      Connection connection, CommandObject<T> command, Duration readTimeout) {
    connection.sendCommand(command.getArguments());
    connection.setSoTimeout((int) Math.min(Integer.MAX_VALUE, readTimeout.toMillis()));
    try {
      return command.getBuilder().build(connection.getOne());
    } finally {
      if (!connection.isBroken()) {
        connection.rollbackTimeout();
      }
    }
  }
}
