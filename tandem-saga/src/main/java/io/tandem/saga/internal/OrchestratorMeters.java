package io.tandem.saga.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tandem.saga.SagaStatus;
import java.time.Duration;
import java.time.Instant;

/**
 * The orchestrator's counters. A status change is counted as it is written (a transaction that then
 * fails to commit was counted too; the database's {@code SagaMetrics} gauges are the exact
 * figures). Thread-safe.
 */
public final class OrchestratorMeters {
  private final MeterRegistry meters;

  public OrchestratorMeters(MeterRegistry meters) {
    this.meters = meters;
  }

  public void started(String type) {
    meters.counter("tandem.saga.started", "type", type).increment();
  }

  public void compensationSent(String type, String step) {
    meters.counter("tandem.saga.compensations", "type", type, "step", step).increment();
  }

  public void versionConflict(String type) {
    meters.counter("tandem.saga.version.conflicts", "type", type).increment();
  }

  public void statusChanged(SagaRow row, Instant now) {
    if (row.status().terminal()) {
      Timer.builder("tandem.saga.duration")
          .description("Time from a saga's start to its end (COMPLETED or COMPENSATED)")
          .tag("type", row.type())
          .tag("status", row.status().name())
          .publishPercentileHistogram()
          .register(meters)
          .record(Duration.between(row.startedAt(), now));
    } else if (row.status() == SagaStatus.STUCK) {
      meters.counter("tandem.saga.went.stuck", "type", row.type()).increment();
    }
  }
}
