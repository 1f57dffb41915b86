package io.tandem.outbox.internal;

import io.tandem.core.ErrorSummary;
import io.tandem.core.FaultInjector;
import io.tandem.jdbc.InsertNotifications;
import io.tandem.outbox.internal.RelayLifecycle.State;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker loop of a started relay: runs pipelined cycles while the relay runs, pauses as the
 * {@link WakeUpPolicy} says after a caught-up cycle (a full batch reads again at once), survives a
 * failed cycle (logged, counted, one error pause), and on stop finishes what is in flight and gives
 * the partitions back. A simulated crash ends it at once: nothing more is published or recorded and
 * the leases expire by themselves. Runs on the worker thread only.
 */
public final class RelayWorker implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(RelayWorker.class);

  private final String relayId;
  private final int batchSize;
  private final RelayCycle cycle;
  private final LeaseScheduler leases;
  private final WakeUpPolicy wakeUps;
  private final WakeSignal signal;
  private final RelayLifecycle lifecycle;
  private final RelayExecutors executors;
  private final RelayHealth health;
  private final RelayMetrics metrics;
  private final Runnable abandon;

  public RelayWorker(
      RelaySettings settings,
      RelayCycle cycle,
      LeaseScheduler leases,
      WakeUpPolicy wakeUps,
      WakeSignal signal,
      RelayLifecycle lifecycle,
      RelayExecutors executors,
      RelayHealth health,
      RelayMetrics metrics,
      Runnable abandon) {
    this.relayId = settings.relayId();
    this.batchSize = settings.batchSize();
    this.cycle = cycle;
    this.leases = leases;
    this.wakeUps = wakeUps;
    this.signal = signal;
    this.lifecycle = lifecycle;
    this.executors = executors;
    this.health = health;
    this.metrics = metrics;
    this.abandon = abandon;
  }

  @Override
  public void run() {
    try {
      while (lifecycle.state() == State.RUNNING) {
        RelayCycle.Result done;
        try {
          done = cycle.run(true);
        } catch (FaultInjector.SimulatedCrash crash) {
          throw crash;
        } catch (RuntimeException e) {
          metrics.lastError(ErrorSummary.of(e));
          health.cycleFailed(e);
          log.error(
              "relay {}: cycle failed, pausing {} ms",
              relayId,
              RelaySettings.ERROR_PAUSE.toMillis(),
              e);
          cycle.drain();
          pause(RelaySettings.ERROR_PAUSE);
          continue;
        }
        if (done.read() >= 0 && done.read() < batchSize) { // caught up
          pause(
              wakeUps.pauseAfter(done.read(), done.acknowledged(), leases.nextCoordinationNanos()));
        }
      }
      cycle.drain();
      leases.releaseAll();
      executors.shutdown();
      lifecycle.moveTo(State.STOPPED);
    } catch (FaultInjector.SimulatedCrash crash) {
      abandon.run(); // a dead process publishes and records nothing more
      executors.shutdownNow();
      lifecycle.moveTo(State.CRASHED);
      closeListener(wakeUps);
      log.warn(
          "relay {} crashed on purpose ({}); its partition leases expire by themselves",
          relayId,
          crash.getMessage());
    }
  }

  private void pause(java.time.Duration d) {
    try {
      signal.pause(d, () -> lifecycle.state() == State.RUNNING);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      lifecycle.moveIf(State.RUNNING, State.STOPPING);
    }
  }

  /** Closes the LISTEN connection, if any. */
  public static void closeListener(WakeUpPolicy wakeUps) {
    InsertNotifications l = wakeUps.detachListener();
    if (l != null) {
      try {
        l.close();
      } catch (Exception e) {
        log.debug("closing the LISTEN connection failed", e);
      }
    }
  }
}
