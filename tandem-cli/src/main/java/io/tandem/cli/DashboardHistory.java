package io.tandem.cli;

import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxStatus;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox's recent history for the dashboard's charts: one point per {@link #sample()}, the last
 * {@value #SIZE} kept. Thread-safe: the sampler thread adds while HTTP threads read.
 */
final class DashboardHistory {
  static final int SIZE = 360;
  private static final Logger log = LoggerFactory.getLogger(DashboardServer.class);

  private final OutboxOperations outbox;
  private final Deque<Map<String, Object>> history = new ArrayDeque<>();
  private long lastPublished = -1;

  DashboardHistory(OutboxOperations outbox) {
    this.outbox = outbox;
  }

  /** Reads the outbox once and adds a point; a failed read is logged and skipped. */
  void sample() {
    try {
      OutboxStatus s = outbox.status();
      Map<String, Object> point = new LinkedHashMap<>();
      point.put("at", Instant.now().toString());
      point.put("pending", s.pending());
      point.put("oldestPendingSeconds", s.oldestPendingAge().toMillis() / 1000.0);
      point.put("quarantined", s.quarantined());
      point.put("published", s.published());
      synchronized (history) {
        point.put(
            "publishedSinceLast",
            lastPublished < 0 ? 0 : Math.max(0, s.published() - lastPublished));
        lastPublished = s.published();
        history.addLast(point);
        while (history.size() > SIZE) {
          history.removeFirst();
        }
      }
    } catch (RuntimeException e) {
      log.warn("dashboard: sampling the outbox failed: {}", e.getMessage());
    }
  }

  /** The points, oldest first. */
  List<Map<String, Object>> points() {
    synchronized (history) {
      return List.copyOf(history);
    }
  }
}
