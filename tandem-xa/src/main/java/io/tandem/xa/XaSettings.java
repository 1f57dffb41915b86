package io.tandem.xa;

import io.tandem.core.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * The coordinator's settings. Immutable; build with {@link #builder(String)}:
 *
 * <pre>{@code
 * XaSettings settings = XaSettings.builder("billing-1")
 *     .presumeAbortAfter(Duration.ofMinutes(2))
 *     .build();
 * }</pre>
 *
 * @param nodeId this coordinator's id, in every xid it creates; stable across restarts (recovery
 *     finishes the transactions of its own node id only) and unique among coordinators sharing a
 *     database: 1 to 27 letters, digits, {@code . _ -}
 * @param recoveryInterval how often recovery runs after the one at start (default {@value
 *     #DEFAULT_RECOVERY_INTERVAL_SECONDS} s)
 * @param presumeAbortAfter how long a prepared branch without a decision is left alone before
 *     recovery presumes its transaction aborted and rolls it back (default {@value
 *     #DEFAULT_PRESUME_ABORT_AFTER_SECONDS} s). Safety does not depend on it — recovery records the
 *     rollback first, so a late commit decision loses — but a value below the time between a
 *     transaction's prepare and its decision rolls back transactions that would have committed
 * @param phaseTwoTimeout how long the committing thread retries phase 2 on a participant that does
 *     not answer before it leaves the branch to recovery (default {@value
 *     #DEFAULT_PHASE_TWO_TIMEOUT_SECONDS} s)
 * @param phaseTwoRetry the backoff between those attempts
 * @param maxConnectionsPerParticipant the most XA connections the coordinator holds open to one
 *     participant (default {@value #DEFAULT_MAX_CONNECTIONS}); a transaction waits for one at most
 *     {@code connectionTimeout}
 * @param connectionTimeout how long a transaction waits for a free connection (default {@value
 *     #DEFAULT_CONNECTION_TIMEOUT_SECONDS} s)
 * @param rollbackRecordRetention how long recovery keeps the rollback records it writes when it
 *     presumes an abort (default one day)
 */
public record XaSettings(
    String nodeId,
    Duration recoveryInterval,
    Duration presumeAbortAfter,
    Duration phaseTwoTimeout,
    RetryPolicy phaseTwoRetry,
    int maxConnectionsPerParticipant,
    Duration connectionTimeout,
    Duration rollbackRecordRetention) {

  public static final long DEFAULT_RECOVERY_INTERVAL_SECONDS = 30;
  public static final long DEFAULT_PRESUME_ABORT_AFTER_SECONDS = 60;
  public static final long DEFAULT_PHASE_TWO_TIMEOUT_SECONDS = 10;
  public static final int DEFAULT_MAX_CONNECTIONS = 16;
  public static final long DEFAULT_CONNECTION_TIMEOUT_SECONDS = 10;
  public static final Duration DEFAULT_ROLLBACK_RECORD_RETENTION = Duration.ofDays(1);

  /** The phase-2 backoff by default: 50 ms doubling to 2 s, with full jitter. */
  public static final RetryPolicy DEFAULT_PHASE_TWO_RETRY =
      RetryPolicy.builder()
          .base(Duration.ofMillis(50))
          .cap(Duration.ofSeconds(2))
          .maxAttempts(Integer.MAX_VALUE)
          .build();

  /** Checks every setting, naming the bad one; the builder is the usual way to make one. */
  public XaSettings {
    GlobalTransactionId.checkNodeId(nodeId, "nodeId");
    positive(recoveryInterval, "recoveryInterval");
    positive(presumeAbortAfter, "presumeAbortAfter");
    positive(phaseTwoTimeout, "phaseTwoTimeout");
    Objects.requireNonNull(phaseTwoRetry, "phaseTwoRetry");
    if (maxConnectionsPerParticipant < 1 || maxConnectionsPerParticipant > 1000) {
      throw new IllegalArgumentException(
          "maxConnectionsPerParticipant must be between 1 and 1000, was "
              + maxConnectionsPerParticipant);
    }
    positive(connectionTimeout, "connectionTimeout");
    positive(rollbackRecordRetention, "rollbackRecordRetention");
    if (rollbackRecordRetention.compareTo(presumeAbortAfter) < 0) {
      throw new IllegalArgumentException(
          "rollbackRecordRetention ("
              + rollbackRecordRetention
              + ") must be at least presumeAbortAfter ("
              + presumeAbortAfter
              + ")");
    }
  }

  private static void positive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
    }
  }

  /** A builder with every default, for the coordinator {@code nodeId}. */
  public static Builder builder(String nodeId) {
    return new Builder(nodeId);
  }

  /** The defaults for {@code nodeId}. */
  public static XaSettings defaults(String nodeId) {
    return builder(nodeId).build();
  }

  /** Builds {@link XaSettings}; every setting has a default but the node id. Not thread-safe. */
  public static final class Builder {
    private final String nodeId;
    private Duration recoveryInterval = Duration.ofSeconds(DEFAULT_RECOVERY_INTERVAL_SECONDS);
    private Duration presumeAbortAfter = Duration.ofSeconds(DEFAULT_PRESUME_ABORT_AFTER_SECONDS);
    private Duration phaseTwoTimeout = Duration.ofSeconds(DEFAULT_PHASE_TWO_TIMEOUT_SECONDS);
    private RetryPolicy phaseTwoRetry = DEFAULT_PHASE_TWO_RETRY;
    private int maxConnectionsPerParticipant = DEFAULT_MAX_CONNECTIONS;
    private Duration connectionTimeout = Duration.ofSeconds(DEFAULT_CONNECTION_TIMEOUT_SECONDS);
    private Duration rollbackRecordRetention = DEFAULT_ROLLBACK_RECORD_RETENTION;

    private Builder(String nodeId) {
      this.nodeId = nodeId;
    }

    public Builder recoveryInterval(Duration d) {
      this.recoveryInterval = d;
      return this;
    }

    public Builder presumeAbortAfter(Duration d) {
      this.presumeAbortAfter = d;
      return this;
    }

    public Builder phaseTwoTimeout(Duration d) {
      this.phaseTwoTimeout = d;
      return this;
    }

    public Builder phaseTwoRetry(RetryPolicy policy) {
      this.phaseTwoRetry = policy;
      return this;
    }

    public Builder maxConnectionsPerParticipant(int n) {
      this.maxConnectionsPerParticipant = n;
      return this;
    }

    public Builder connectionTimeout(Duration d) {
      this.connectionTimeout = d;
      return this;
    }

    public Builder rollbackRecordRetention(Duration d) {
      this.rollbackRecordRetention = d;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the first bad setting and its value
     */
    public XaSettings build() {
      return new XaSettings(
          nodeId,
          recoveryInterval,
          presumeAbortAfter,
          phaseTwoTimeout,
          phaseTwoRetry,
          maxConnectionsPerParticipant,
          connectionTimeout,
          rollbackRecordRetention);
    }
  }
}
