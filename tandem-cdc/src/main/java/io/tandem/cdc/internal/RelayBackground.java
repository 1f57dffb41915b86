package io.tandem.cdc.internal;

import io.tandem.core.ErrorSummary;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC relay's one background thread beside the engine's: the drain every drain interval, the
 * lag measurement and the relay's heartbeat row every monitoring interval; each task survives its
 * own failures (logged, tried again at the next turn).
 */
public final class RelayBackground {
  private static final Logger log = LoggerFactory.getLogger(RelayBackground.class);

  private final String relayId;
  private final ScheduledExecutorService scheduler;

  public RelayBackground(String relayId, ThreadFactory threads) {
    this.relayId = relayId;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(threads);
  }

  /** Schedules the drain, and the monitor with the relay's heartbeat row. */
  public void start(
      Drain drain,
      Duration drainInterval,
      SlotMonitor monitor,
      CdcStore store,
      String slot,
      CdcMetrics metrics,
      Duration monitorInterval) {
    scheduler.scheduleWithFixedDelay(
        () -> guarded("drain", drain),
        drainInterval.toMillis(),
        drainInterval.toMillis(),
        TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        () ->
            guarded(
                "monitor",
                () -> {
                  monitor.look();
                  store.relayHeartbeat(
                      slot,
                      metrics.takePublishedSinceBeat(),
                      metrics.lastPublishedAt().orElse(null));
                }),
        0,
        monitorInterval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void guarded(String task, Runnable work) {
    try {
      work.run();
    } catch (RuntimeException e) {
      log.warn(
          "CDC relay {}: {} failed, trying again later: {}", relayId, task, ErrorSummary.of(e));
    }
  }

  /** Stops both tasks, interrupting a running one; waits up to 30 s. */
  public void stop() {
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
