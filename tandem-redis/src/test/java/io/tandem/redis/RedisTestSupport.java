package io.tandem.redis;

import io.tandem.core.Event;
import io.tandem.testkit.TestEvents;
import java.util.List;
import java.util.UUID;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The real Redis the tests talk to: {@code TANDEM_REDIS_URI}, default {@code
 * redis://127.0.0.1:6379}. Each test writes to its own uniquely prefixed keys and deletes them.
 */
final class RedisTestSupport {
  static final String TRACEPARENT = TestEvents.TRACEPARENT;
  static final String SOURCE = "/tandem/orders-service";

  private static RedisClient admin;

  private RedisTestSupport() {}

  static String uri() {
    String uri = System.getenv("TANDEM_REDIS_URI");
    return uri == null || uri.isBlank() ? "redis://127.0.0.1:6379" : uri;
  }

  /** A client for test set-up and read-back, shared by the JVM's tests. */
  static synchronized RedisClient admin() {
    if (admin == null) {
      admin = RedisClient.create(java.net.URI.create(uri()));
    }
    return admin;
  }

  /** A unique key prefix, e.g. {@code t3f9a0b1c:}. */
  static String uniquePrefix() {
    return "t" + UUID.randomUUID().toString().substring(0, 8) + ":";
  }

  /** Deletes every key that starts with {@code prefix}. */
  static void deleteKeys(String prefix) {
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = admin().scan(cursor, new ScanParams().match(prefix + "*"));
      if (!page.getResult().isEmpty()) {
        admin().del(page.getResult().toArray(new String[0]));
      }
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
  }

  static Event event(String aggregateType, String aggregateId, long version) {
    return TestEvents.event(aggregateType, aggregateId, version);
  }

  /** {@code count} events spread over {@code aggregates} aggregates, versions increasing. */
  static List<Event> events(String aggregateType, int aggregates, int count) {
    return TestEvents.events(aggregateType, aggregates, count);
  }

  static RedisStreamsTransport transport(StreamRouter router) {
    return RedisStreamsTransport.builder().uri(uri()).source(SOURCE).streamRouter(router).build();
  }

  /** A loopback port on which nothing listens. */
  static int closedPort() {
    return TestEvents.closedPort();
  }
}
