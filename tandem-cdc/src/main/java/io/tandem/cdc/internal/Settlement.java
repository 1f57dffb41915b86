package io.tandem.cdc.internal;

import io.tandem.core.ErrorClass;
import io.tandem.core.ErrorSummary;
import io.tandem.core.PublishException;
import io.tandem.core.RetryPolicy;
import io.tandem.jdbc.JdbcException;
import io.tandem.outbox.OutboxRow;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what a round of publishes came to: acknowledged rows marked published, a failed one given
 * the polling relay's retry (backoff, {@code attempts}, {@code last_error}) or quarantine, an
 * undecodable row quarantined; a failed or unmarked row's aggregate is held for the drain ({@link
 * HeldAggregates}). Used by the stream and the drain. Thread-safe.
 */
public final class Settlement {
  private static final Logger log = LoggerFactory.getLogger(Settlement.class);

  private final String relayId;
  private final CdcStore store;
  private final HeldAggregates held;
  private final CdcMetrics metrics;
  private final RetryPolicy retryPolicy;

  public Settlement(
      String relayId,
      CdcStore store,
      HeldAggregates held,
      CdcMetrics metrics,
      RetryPolicy retryPolicy) {
    this.relayId = relayId;
    this.store = store;
    this.held = held;
    this.metrics = metrics;
    this.retryPolicy = retryPolicy;
  }

  public void settle(RoundPublisher.Result result) {
    List<Long> acknowledged = result.acknowledged().stream().map(i -> i.rowId()).toList();
    if (!acknowledged.isEmpty()) {
      try {
        int marked =
            VisibleMarks.markAll(
                () -> store.markPublished(relayId, acknowledged),
                acknowledged.size(),
                Thread::sleep);
        if (marked < acknowledged.size()) {
          // Marked by someone else (the drain) or still not visible: the drain looks at these
          // aggregates again and publishes (then marks) whatever is still pending.
          result.acknowledged().forEach(i -> held.hold(i.aggregate()));
          log.info(
              "CDC relay {}: {} of {} acknowledged rows were not marked by this relay; the drain"
                  + " checks their aggregates",
              relayId,
              acknowledged.size() - marked,
              acknowledged.size());
        }
      } catch (JdbcException e) {
        // Published but not marked: the drain publishes them again and marks them.
        Set<Aggregate> aggregates = new HashSet<>();
        result.acknowledged().forEach(i -> aggregates.add(i.aggregate()));
        aggregates.forEach(held::hold);
        log.warn(
            "CDC relay {}: marking {} acknowledged rows failed; the drain publishes them again: {}",
            relayId,
            acknowledged.size(),
            ErrorSummary.of(e));
      }
      metrics.published(acknowledged.size());
    }
    for (RoundPublisher.Failed failed : result.failed()) {
      recordFailure(failed);
    }
  }

  private void recordFailure(RoundPublisher.Failed failed) {
    RoundPublisher.Item item = failed.item();
    PublishException error = failed.error();
    boolean quarantine = !error.retriable() || !retryPolicy.mayRetry(item.attempt());
    metrics.failure(error.errorClass());
    held.hold(item.aggregate());
    try {
      if (quarantine) {
        store.quarantine(item.rowId(), error.errorClass(), error.getMessage());
        log.error(
            "CDC relay {}: quarantining {} after attempt {} ({}); later events of {}/{} wait for"
                + " an operator (tandem outbox replay or skip): {}",
            relayId,
            item.event(),
            item.attempt(),
            error.errorClass(),
            item.aggregate().type(),
            item.aggregate().id(),
            error.getMessage());
      } else {
        Duration delay = retryPolicy.delayAfter(item.attempt());
        store.retryLater(item.rowId(), delay, error.errorClass(), error.getMessage());
        log.warn(
            "CDC relay {}: attempt {} of {} failed ({}), retry in {} ms: {}",
            relayId,
            item.attempt(),
            item.event(),
            error.errorClass(),
            delay.toMillis(),
            error.getMessage());
      }
    } catch (JdbcException e) {
      // The row stays pending without the failure noted; the drain retries it at once.
      log.warn("CDC relay {}: {}", relayId, ErrorSummary.of(e));
    }
  }

  /** Quarantines a row that is not a valid event, and holds its aggregate. */
  public void quarantineUndecodable(OutboxRow row, Aggregate aggregate, RuntimeException e) {
    held.hold(aggregate);
    String reason = OutboxRow.undecodableReason(e);
    log.error(
        "CDC relay {}: outbox row {} is not a valid event, quarantined: {}",
        relayId,
        row.rowId(),
        reason);
    try {
      store.quarantine(row.rowId(), ErrorClass.INVALID_EVENT, reason);
    } catch (JdbcException failure) {
      log.warn("CDC relay {}: {}", relayId, ErrorSummary.of(failure));
    }
  }
}
