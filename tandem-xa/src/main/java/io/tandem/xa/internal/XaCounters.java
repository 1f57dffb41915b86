package io.tandem.xa.internal;

import io.tandem.xa.XaOutcome;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counts of ended transactions by outcome and of heuristic reports, for metrics. Thread-safe. */
public final class XaCounters {
  private final Map<XaOutcome, AtomicLong> outcomes = new EnumMap<>(XaOutcome.class);
  private final AtomicLong onePhase = new AtomicLong();
  private final AtomicLong heuristics = new AtomicLong();

  public XaCounters() {
    for (XaOutcome o : XaOutcome.values()) {
      outcomes.put(o, new AtomicLong());
    }
  }

  void ended(XaOutcome outcome, boolean onePhaseCommit) {
    outcomes.get(outcome).incrementAndGet();
    if (onePhaseCommit) {
      onePhase.incrementAndGet();
    }
  }

  void heuristic() {
    heuristics.incrementAndGet();
  }

  public long outcomes(XaOutcome outcome) {
    return outcomes.get(outcome).get();
  }

  /** Transactions committed in one phase (at most one branch wrote). */
  public long onePhase() {
    return onePhase.get();
  }

  /** Heuristic outcomes seen by transactions and recovery. */
  public long heuristics() {
    return heuristics.get();
  }
}
