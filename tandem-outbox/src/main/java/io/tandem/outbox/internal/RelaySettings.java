package io.tandem.outbox.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.FaultInjector;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Dialect;
import io.tandem.outbox.RelayClock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;

/**
 * Every setting of one relay, immutable, validated as it is built ({@code OutboxRelay.Builder}
 * builds it). The data source, dialect, transport, meter registry and thread factory may be null
 * only in a record built to check the other settings ({@code Builder.checkSettings()}); the
 * executors are null where the relay creates (and owns) its own.
 *
 * @param publishExecutor runs the full batches of a backlog, two at a time
 * @param recordExecutor runs the marks of caught-up batches, one at a time, in order
 */
public record RelaySettings(
    String relayId,
    DataSource dataSource,
    Dialect dialect,
    Transport transport,
    int batchSize,
    Duration lease,
    Duration heartbeat,
    Duration publishTimeout,
    Duration pollInterval,
    Duration lingerWhenBusy,
    boolean listen,
    RetryPolicy retryPolicy,
    FaultInjector faults,
    int unhealthyAfter,
    ThreadFactory threadFactory,
    MeterRegistry meters,
    RelayClock clock,
    ExecutorService publishExecutor,
    ExecutorService recordExecutor) {

  /** Pause after a failed cycle, and before the next coordination after a failed one. */
  public static final Duration ERROR_PAUSE = Duration.ofSeconds(1);

  /** Checks every setting but the data source, dialect and transport; names the first bad one. */
  public RelaySettings {
    require(
        relayId != null && !relayId.isBlank() && relayId.length() <= 200,
        "relayId must be 1 to 200 characters, was '" + relayId + "'");
    require(
        batchSize >= 1 && batchSize <= 10_000,
        "batchSize must be between 1 and 10000, was " + batchSize);
    positive("publishTimeout", publishTimeout);
    positive("pollInterval", pollInterval);
    require(
        lingerWhenBusy != null
            && !lingerWhenBusy.isNegative()
            && lingerWhenBusy.compareTo(Duration.ofSeconds(1)) <= 0,
        "lingerWhenBusy must be between 0 and 1 s, was " + lingerWhenBusy);
    positive("leaseDuration", lease);
    positive("heartbeatInterval", heartbeat);
    require(
        lease.compareTo(publishTimeout.plus(heartbeat)) > 0,
        "leaseDuration ("
            + lease
            + ") must exceed publishTimeout + heartbeatInterval ("
            + publishTimeout.plus(heartbeat)
            + "), or a partition could move to another relay while a batch is in flight");
    require(
        unhealthyAfter >= 1 && unhealthyAfter <= 1000,
        "unhealthyAfterFailedCycles must be between 1 and 1000, was " + unhealthyAfter);
    Objects.requireNonNull(retryPolicy, "retryPolicy");
    Objects.requireNonNull(faults, "faultInjector");
    Objects.requireNonNull(clock, "clock");
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  private static void positive(String name, Duration d) {
    require(
        d != null && !d.isNegative() && !d.isZero(),
        name + " must be a positive duration, was " + d);
  }
}
