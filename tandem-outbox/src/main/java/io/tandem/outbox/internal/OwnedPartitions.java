package io.tandem.outbox.internal;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The partitions a relay holds and the fencing epoch of each, as last confirmed by the database,
 * with the local deadline until which the relay may act on them.
 */
public record OwnedPartitions(Map<Integer, Long> epochs, long validUntilNanos) {
  public static final OwnedPartitions NONE = new OwnedPartitions(Map.of(), 0);

  public OwnedPartitions {
    epochs = Collections.unmodifiableMap(new TreeMap<>(epochs));
  }

  public boolean isEmpty() {
    return epochs.isEmpty();
  }

  /** Whether the leases are still safe to act on at {@code nowNanos} (System.nanoTime()). */
  public boolean validAt(long nowNanos) {
    return !epochs.isEmpty() && nowNanos - validUntilNanos < 0;
  }

  public int size() {
    return epochs.size();
  }
}
