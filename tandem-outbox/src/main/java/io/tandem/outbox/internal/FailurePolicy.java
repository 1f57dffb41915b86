package io.tandem.outbox.internal;

import io.tandem.core.PublishException;
import io.tandem.core.RetryPolicy;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what a refused event becomes: a retry after the policy's backoff (with full jitter), or a
 * quarantine when the error is permanent or the attempt was the last allowed. Counts and logs the
 * decision. Thread-safe (stateless; the publisher threads call it).
 */
public final class FailurePolicy {
  private static final Logger log = LoggerFactory.getLogger(FailurePolicy.class);

  private final String relayId;
  private final RetryPolicy retryPolicy;
  private final RelayMetrics metrics;

  public FailurePolicy(String relayId, RetryPolicy retryPolicy, RelayMetrics metrics) {
    this.relayId = relayId;
    this.retryPolicy = retryPolicy;
    this.metrics = metrics;
  }

  /** The failure to record for {@code claimed}, which the broker refused with {@code error}. */
  public OutboxStore.Failure decide(ClaimedEvent claimed, PublishException error) {
    boolean quarantine = !error.retriable() || !retryPolicy.mayRetry(claimed.attempt());
    Duration delay = quarantine ? Duration.ZERO : retryPolicy.delayAfter(claimed.attempt());
    metrics.failure(error.errorClass(), quarantine);
    if (quarantine) {
      log.error(
          "relay {}: quarantining {} after attempt {} ({}); later events of aggregate {}/{} wait"
              + " for an operator (OutboxOperations.replay or skip): {}",
          relayId,
          claimed.event(),
          claimed.attempt(),
          error.errorClass(),
          claimed.event().aggregateType(),
          claimed.event().aggregateId(),
          error.getMessage());
    } else {
      log.warn(
          "relay {}: attempt {} of {} failed ({}), retry in {} ms: {}",
          relayId,
          claimed.attempt(),
          claimed.event(),
          error.errorClass(),
          delay.toMillis(),
          error.getMessage());
    }
    return new OutboxStore.Failure(
        claimed.rowId(),
        claimed.partition(),
        error.errorClass(),
        error.getMessage(),
        quarantine,
        delay);
  }
}
