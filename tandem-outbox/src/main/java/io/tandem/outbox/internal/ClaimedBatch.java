package io.tandem.outbox.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one read of the relay returned: the due rows that decoded into events, and those that did
 * not (to be quarantined), in row order.
 *
 * @param events the rows that hold valid events
 * @param undecodable the rows that do not
 * @param rowsRead how many rows the read returned, both kinds together
 * @param lastRowId the highest row id read (0 when none)
 */
public record ClaimedBatch(
    List<ClaimedEvent> events, List<UndecodableRow> undecodable, int rowsRead, long lastRowId) {

  /** An empty read. */
  public static final ClaimedBatch EMPTY = new ClaimedBatch(List.of(), List.of(), 0, 0);

  /**
   * The events that may go: all but the later versions of an aggregate whose earlier version in
   * this batch cannot be decoded (they wait behind it, as behind any quarantined version).
   */
  public List<ClaimedEvent> publishable() {
    if (undecodable.isEmpty()) {
      return events;
    }
    Map<String, Long> firstUndecodable = new HashMap<>();
    for (UndecodableRow row : undecodable) {
      firstUndecodable.merge(
          key(row.aggregateType(), row.aggregateId()), row.aggregateVersion(), Math::min);
    }
    return events.stream()
        .filter(
            c -> {
              Long blocked =
                  firstUndecodable.get(key(c.event().aggregateType(), c.event().aggregateId()));
              return blocked == null || c.event().aggregateVersion() < blocked;
            })
        .toList();
  }

  private static String key(String type, String id) {
    return type + '\u0000' + id;
  }
}
