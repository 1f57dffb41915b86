package io.tandem.cdc.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The aggregates the stream must not publish directly: one of their rows is in the database waiting
 * for a retry (or quarantined), or was there when the relay started. Their later events are left in
 * the database too, and the relay's {@code DatabaseDrain} publishes them in version order. An
 * aggregate is released only when a read of its pending rows found none and nothing of it was left
 * behind since that read began (the generation), so no event falls between stream and drain.
 *
 * <p>Thread-safe.
 */
public final class HeldAggregates {
  private final Map<Aggregate, Long> generations = new HashMap<>();
  private long nextGeneration;

  /** Holds {@code aggregate} (again): a new generation. */
  public synchronized void hold(Aggregate aggregate) {
    generations.put(aggregate, ++nextGeneration);
  }

  /**
   * If {@code aggregate} is held, notes that the stream left one more of its events in the database
   * and returns true; returns false if the stream may publish it.
   */
  public synchronized boolean leaveBehind(Aggregate aggregate) {
    if (!generations.containsKey(aggregate)) {
      return false;
    }
    generations.put(aggregate, ++nextGeneration);
    return true;
  }

  /** The generation of a held aggregate, or -1. Read before reading its pending rows. */
  public synchronized long generation(Aggregate aggregate) {
    return generations.getOrDefault(aggregate, -1L);
  }

  /** Releases {@code aggregate} if nothing was left behind since {@code generation}. */
  public synchronized boolean releaseIf(Aggregate aggregate, long generation) {
    return generations.remove(aggregate, generation);
  }

  public synchronized List<Aggregate> snapshot() {
    return List.copyOf(generations.keySet());
  }

  public synchronized int size() {
    return generations.size();
  }
}
