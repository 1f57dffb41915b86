package io.tandem.outbox.internal;

import io.micrometer.core.instrument.Timer;
import io.tandem.core.ErrorSummary;
import io.tandem.core.FaultInjector;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one batch in order and records its outcome. A caller that passes {@code recordLater}
 * (the cycle's thread, for a caught-up batch) has a batch without failures marked on the recorder
 * thread; a batch with a failure is recorded at once, after the queued marks, so that its retries
 * and quarantines hold back later versions before anything more is read. Thread-safe apart from
 * {@code recordLater}, which only the cycle's thread passes: a pipelined batch's events and outcome
 * live in the call's locals on its publisher thread.
 */
public final class BatchPublication {
  private static final Logger log = LoggerFactory.getLogger(BatchPublication.class);

  private final String relayId;
  private final OrderedPublisher publisher;
  private final PublishedMarks marks;
  private final FaultInjector faults;
  private final RelayHealth health;
  private final RelayMetrics metrics;
  private final RelayLifecycle lifecycle;

  public BatchPublication(
      String relayId,
      OrderedPublisher publisher,
      PublishedMarks marks,
      FaultInjector faults,
      RelayHealth health,
      RelayMetrics metrics,
      RelayLifecycle lifecycle) {
    this.relayId = relayId;
    this.publisher = publisher;
    this.marks = marks;
    this.faults = faults;
    this.health = health;
    this.metrics = metrics;
    this.lifecycle = lifecycle;
  }

  /**
   * Publishes and records {@code batch}; on a failure nothing is marked, the batch stays due and is
   * read and published again.
   *
   * @return how many of its events the broker acknowledged
   */
  public int run(List<ClaimedEvent> batch, OwnedPartitions owned, boolean recordLater) {
    try {
      Timer.Sample sample = metrics.startBatch();
      faults.reached(FaultInjector.RELAY_AFTER_CLAIM);
      OrderedPublisher.Outcome outcome = publisher.publish(batch, owned);
      faults.reached(FaultInjector.RELAY_AFTER_ACK);
      long publishNanos = metrics.batchPublished(sample);
      long recordStart = System.nanoTime();
      if (recordLater && outcome.failures().isEmpty()) {
        marks.recordLater(owned, outcome.acknowledged());
        return outcome.acknowledged().size();
      }
      if (recordLater) {
        marks.awaitAll(); // marks go in order; retries and quarantines are in place before a read
      }
      marks.record(owned, outcome);
      if (log.isTraceEnabled()) {
        log.trace(
            "relay {}: published {} events in {} us, recorded them in {} us",
            relayId,
            batch.size(),
            publishNanos / 1000,
            (System.nanoTime() - recordStart) / 1000);
      }
      return outcome.acknowledged().size();
    } catch (FaultInjector.SimulatedCrash crash) {
      lifecycle.crashed(crash);
      throw crash;
    } catch (RuntimeException e) {
      metrics.lastError(ErrorSummary.of(e));
      health.cycleFailed(e);
      log.error("relay {}: publishing a batch of {} events failed", relayId, batch.size(), e);
      throw e;
    }
  }
}
