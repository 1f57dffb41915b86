package io.tandem.redis;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.ArrayList;
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
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
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
    return Event.builder()
        .aggregate(aggregateType, aggregateId, version)
        .eventType("OrderPlaced")
        .schemaVersion(2)
        .payload(
            "{\"orderId\":\"" + aggregateId + "\",\"version\":" + version + ",\"note\":\"é€\"}")
        .headers(
            EventHeaders.builder()
                .traceparent(TRACEPARENT)
                .tracestate("vendor=abc")
                .tenant("acme")
                .correlationId("checkout-" + aggregateId)
                .put("origin", "tests")
                .build())
        .occurredAt(Instant.parse("2025-03-01T10:15:30.123456Z").plusSeconds(version))
        .build();
  }

  /** {@code count} events spread over {@code aggregates} aggregates, versions increasing. */
  static List<Event> events(String aggregateType, int aggregates, int count) {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(event(aggregateType, "order-" + (i % aggregates), i / aggregates + 1));
    }
    return events;
  }

  static RedisStreamsTransport transport(StreamRouter router) {
    return RedisStreamsTransport.builder().uri(uri()).source(SOURCE).streamRouter(router).build();
  }

  /** A loopback port on which nothing listens. */
  static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
