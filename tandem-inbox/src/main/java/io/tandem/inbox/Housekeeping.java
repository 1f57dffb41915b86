package io.tandem.inbox;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runner's periodic chores on one named daemon thread ({@code tandem-consumer-<consumer>-gaps}):
 * every sweep interval, apply parked events left behind ({@link InboxProcessor#drainReady()});
 * every gap-check interval, {@link InboxProcessor#checkGaps()}. A failing chore is logged.
 */
final class Housekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(Housekeeping.class);

  private final InboxProcessor processor;
  private final BooleanSupplier stopping;
  private final ScheduledExecutorService executor;

  Housekeeping(
      InboxProcessor processor, Duration sweep, Duration gapCheck, BooleanSupplier stopping) {
    this.processor = processor;
    this.stopping = stopping;
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-consumer-" + processor.consumer() + "-gaps");
              t.setDaemon(true);
              return t;
            });
    executor.scheduleWithFixedDelay(this::sweep, 0, sweep.toMillis(), TimeUnit.MILLISECONDS);
    executor.scheduleWithFixedDelay(
        this::checkGaps, gapCheck.toMillis(), gapCheck.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void sweep() {
    if (!processor.ordered() || stopping.getAsBoolean()) {
      return;
    }
    try {
      int aggregates = processor.drainReady();
      if (aggregates > 0) {
        LOG.info(
            "consumer {}: applied parked events of {} aggregates left behind earlier",
            processor.consumer(),
            aggregates);
      }
    } catch (RuntimeException e) {
      LOG.warn("consumer {}: sweeping parked events failed", processor.consumer(), e);
    }
  }

  private void checkGaps() {
    try {
      processor.checkGaps();
    } catch (RuntimeException e) {
      LOG.warn("consumer {}: gap check failed", processor.consumer(), e);
    }
  }

  void close() {
    executor.shutdownNow();
  }
}
