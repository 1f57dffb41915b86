package io.tandem.examples.checkout;

import io.tandem.examples.checkout.CheckoutDemo.Planned;
import io.tandem.saga.SagaStatus;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Feeds the demo's checkouts to a running {@link CheckoutSystem}: at most {@code inFlight} sagas at
 * once, the next started as one ends, with a progress line; kills the orchestrator process as often
 * as the settings ask.
 */
final class CheckoutDriver {
  /** How often the driver looks for ended sagas, to start the next ones. */
  private static final long POLL_MILLIS = 10;

  private final CheckoutDemoSettings settings;
  private final DemoProgress progress;

  CheckoutDriver(CheckoutDemoSettings settings, DemoProgress progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /**
   * Starts the checkouts of {@code plan}, at most {@code inFlight} at once, the next as soon as one
   * ends, until every one ended or the timeout passed. The ids of the sagas go into {@code ids}
   * when given; {@code timed} runs show progress and may kill the orchestrator.
   */
  void drive(
      CheckoutSystem system,
      List<Planned> plan,
      Set<UUID> ids,
      OrchestratorProcesses orchestrators,
      boolean timed)
      throws Exception {
    Map<SagaStatus, Long> before = system.statusCounts();
    long endedBefore = ended(before);
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    long runStart = System.nanoTime();
    long lastPrint = 0;
    int started = 0;
    int total = plan.size();
    Map<SagaStatus, Long> counts = before;
    while (System.nanoTime() < deadline) {
      counts = system.statusCounts();
      long ended = ended(counts) - endedBefore;
      if (ended >= total) {
        break;
      }
      if (timed
          && orchestrators.kills() < settings.orchestratorKills()
          && ended
              >= (long) total * (orchestrators.kills() + 1) / (settings.orchestratorKills() + 1)) {
        orchestrators.killAndReplace(started - ended);
      }
      while (started < total && started - ended < settings.inFlight()) {
        UUID id = system.checkout(plan.get(started++).checkout());
        if (ids != null) {
          ids.add(id);
        }
      }
      if (timed
          && System.nanoTime() - lastPrint
              > TimeUnit.MILLISECONDS.toNanos(progress.liveLine() ? 250 : 2000)) {
        lastPrint = System.nanoTime();
        progressLine(started, counts, ended, runStart);
      }
      TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
    }
    if (timed) {
      progressLine(started, counts, ended(counts) - endedBefore, runStart);
      progress.endLiveLine();
    }
    if (System.nanoTime() >= deadline) {
      progress.say("timed out after %s waiting for every saga to end", settings.timeout());
    }
  }

  private static long ended(Map<SagaStatus, Long> counts) {
    return counts.get(SagaStatus.COMPLETED)
        + counts.get(SagaStatus.COMPENSATED)
        + counts.get(SagaStatus.STUCK);
  }

  private void progressLine(int started, Map<SagaStatus, Long> counts, long ended, long runStart) {
    double seconds = Math.max(1e-3, (System.nanoTime() - runStart) / 1e9);
    String line =
        String.format(
            Locale.ROOT,
            "[demo] started %d/%d  completed %d  compensated %d  running %d  compensating %d"
                + "  stuck %d  %.0f sagas/s",
            started,
            settings.checkouts(),
            counts.get(SagaStatus.COMPLETED),
            counts.get(SagaStatus.COMPENSATED),
            counts.get(SagaStatus.RUNNING),
            counts.get(SagaStatus.COMPENSATING),
            counts.get(SagaStatus.STUCK),
            ended / seconds);
    progress.progress(line);
  }
}
