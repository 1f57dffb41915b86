package io.tandem.outbox.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.ErrorSummary;
import io.tandem.outbox.RelayClock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a relay's cycles work: counts the cycles in a row that failed (the read, the publish or
 * the record threw), and calls the relay failing from {@code unhealthyAfter} of them on, until a
 * cycle works again. A failure is a fault of the relay's own work — a database it cannot read, a
 * transport that throws — not a broker that refuses events: those are recorded as retries and
 * quarantines, and the cycle that recorded them worked.
 *
 * <p>Meters: {@code tandem.relay.cycles.failed} (counter) and {@code tandem.relay.cycles.failing}
 * (gauge: failed cycles in a row), tagged with the relay. Logs one ERROR when the relay becomes
 * failing and one INFO when it recovers. Thread-safe: the worker, the pipeline and the recorder
 * threads report to it.
 */
public final class RelayHealth {
  private static final Logger log = LoggerFactory.getLogger(RelayHealth.class);

  private final String relayId;
  private final int unhealthyAfter;
  private final RelayClock clock;
  private final Counter failedCycles;
  private int failuresInARow;
  private long lastGoodNanos;
  private String lastFailure;
  private Throwable lastNoted;

  public RelayHealth(String relayId, int unhealthyAfter, MeterRegistry meters, RelayClock clock) {
    this.relayId = relayId;
    this.clock = clock;
    this.unhealthyAfter = unhealthyAfter;
    this.failedCycles =
        Counter.builder("tandem.relay.cycles.failed")
            .description("Relay cycles whose read, publish or record failed")
            .tag("relay", relayId)
            .register(meters);
    Gauge.builder("tandem.relay.cycles.failing", this, RelayHealth::failuresInARow)
        .description("Relay cycles in a row that failed; 0 once one works")
        .tag("relay", relayId)
        .register(meters);
  }

  /** A cycle worked: it read, and published and recorded what it read, or found nothing. */
  public synchronized void cycleSucceeded() {
    if (failuresInARow >= unhealthyAfter) {
      log.info("relay {} works again after {} failed cycles in a row", relayId, failuresInARow);
    }
    failuresInARow = 0;
    lastGoodNanos = clock.nanoTime();
  }

  /**
   * A cycle failed with {@code error} (already logged by the caller). Reporting the same exception
   * twice, as it travels up from where it was noted, counts it once.
   */
  public synchronized void cycleFailed(Throwable error) {
    if (error == lastNoted) {
      return;
    }
    lastNoted = error;
    lastFailure = ErrorSummary.of(error);
    failedCycles.increment();
    if (++failuresInARow == unhealthyAfter) {
      log.error(
          "relay {} is not healthy: its last {} cycles failed, the last with {}; it keeps its"
              + " partitions and keeps trying, but publishes nothing until a cycle works",
          relayId,
          failuresInARow,
          lastFailure);
    }
  }

  /** Cycles in a row that failed. */
  public synchronized int failuresInARow() {
    return failuresInARow;
  }

  /** Whether the last {@code unhealthyAfter} cycles all failed. */
  public synchronized boolean failing() {
    return failuresInARow >= unhealthyAfter;
  }

  /** Time since a cycle last worked; null if none has yet. */
  public synchronized Duration sinceLastGoodCycle() {
    return lastGoodNanos == 0 ? null : Duration.ofNanos(clock.nanoTime() - lastGoodNanos);
  }

  /** The summary of the last failure, null before the first. */
  public synchronized String lastFailure() {
    return lastFailure;
  }
}
