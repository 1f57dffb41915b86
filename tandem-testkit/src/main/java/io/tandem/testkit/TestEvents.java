package io.tandem.testkit;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Events and addresses that transport tests share: a fully populated envelope (every header, schema
 * version 2, non-ASCII payload, microsecond time) so that a codec round trip checks every field,
 * and a loopback port nobody listens on.
 */
public final class TestEvents {
  /** A valid W3C traceparent carried by every test event. */
  public static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private TestEvents() {}

  /**
   * The aggregates ({@code type/id}) of which one publish call carries more than one event. A relay
   * sends an aggregate's next version only after the previous one was acknowledged, so a test
   * transport fails a call for which this is not empty: an in-memory transport acknowledges in list
   * order and would hide the reordering a real broker may do within one call.
   */
  public static List<String> repeatedAggregates(List<Event> call) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    List<String> repeated = new ArrayList<>();
    for (Event e : call) {
      String aggregate = e.aggregateType() + "/" + e.aggregateId();
      if (!seen.add(aggregate) && !repeated.contains(aggregate)) {
        repeated.add(aggregate);
      }
    }
    return repeated;
  }

  /** One event of {@code aggregateType}/{@code aggregateId} at {@code version}. */
  public static Event event(String aggregateType, String aggregateId, long version) {
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
  public static List<Event> events(String aggregateType, int aggregates, int count) {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(event(aggregateType, "order-" + (i % aggregates), i / aggregates + 1));
    }
    return events;
  }

  /** A loopback port on which nothing listens (it was free a moment ago). */
  public static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
