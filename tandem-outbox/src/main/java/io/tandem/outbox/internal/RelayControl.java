package io.tandem.outbox.internal;

import io.tandem.core.ErrorSummary;
import io.tandem.core.FaultInjector;
import io.tandem.outbox.RelayStatus;
import io.tandem.outbox.internal.RelayLifecycle.State;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code OutboxRelay}'s start, runOnce, close and status do, on the relay's parts.
 * Thread-safe: start, runOnce and the worker hand-over in close are synchronized.
 */
public final class RelayControl {
  private static final Logger log = LoggerFactory.getLogger(RelayControl.class);

  private final RelaySettings settings;
  private final RelayParts parts;
  private Thread worker;

  public RelayControl(RelaySettings settings, String host) {
    this.settings = settings;
    this.parts = RelayParts.of(settings, host);
  }

  public RelayParts parts() {
    return parts;
  }

  /** Starts the worker thread, LISTENing first where the database can notify. */
  public synchronized void start(Runnable wakeUp) {
    State now = parts.lifecycle().state();
    if (now != State.NEW) {
      throw new IllegalStateException(
          "relay " + settings.relayId() + " was already started (" + now + ")");
    }
    parts.lifecycle().moveTo(State.RUNNING);
    if (settings.listen()) {
      parts
          .wakeUps()
          .listenWith(
              settings
                  .dialect()
                  .listenForOutboxInserts(
                      settings.dataSource(), settings.relayId(), wakeUp, RelaySettings.ERROR_PAUSE)
                  .orElse(null));
    }
    worker = settings.threadFactory().newThread(parts.worker());
    worker.start();
    log.info(
        "relay {} started on transport {} ({})",
        settings.relayId(),
        settings.transport().name(),
        parts.wakeUps().hasListener()
            ? "LISTEN/NOTIFY wake-up"
            : "polling every " + settings.pollInterval().toMillis() + " ms");
  }

  /** One synchronous cycle on the calling thread, for a relay not started. */
  public synchronized int runOnce() {
    State now = parts.lifecycle().state();
    if (now == State.RUNNING || now == State.STOPPING) {
      throw new IllegalStateException(
          "relay "
              + settings.relayId()
              + " runs on its own thread; runOnce() is for a relay not started");
    }
    parts.cycle().drain();
    try {
      return Math.max(0, parts.cycle().run(false).read());
    } catch (FaultInjector.SimulatedCrash crash) {
      throw crash;
    } catch (RuntimeException e) {
      parts.metrics().lastError(ErrorSummary.of(e));
      parts.health().cycleFailed(e);
      throw e;
    }
  }

  /** Stops gracefully, waiting at most the publish timeout plus 10 s for the worker. */
  public void close() {
    Thread t;
    synchronized (this) {
      parts.lifecycle().moveIf(State.RUNNING, State.STOPPING);
      t = worker;
    }
    parts.signal().wakeUp();
    if (t != null) {
      try {
        t.join(settings.publishTimeout().plusSeconds(10).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t.isAlive()) {
        log.warn(
            "relay {} did not stop in time; its leases expire by themselves", settings.relayId());
      } else {
        log.info(
            "relay {} stopped; published {} events",
            settings.relayId(),
            parts.metrics().published());
      }
    } else if (!parts.lifecycle().moveIf(State.STOPPING, State.STOPPED)) {
      parts.lifecycle().moveIf(State.NEW, State.STOPPED);
    }
    RelayWorker.closeListener(parts.wakeUps());
    parts.executors().shutdown();
  }

  /** The relay's view of itself. */
  public RelayStatus status() {
    OwnedPartitions owned = parts.leases().owned();
    return new RelayStatus(
        settings.relayId(),
        parts.lifecycle().state().name(),
        owned.validAt(settings.clock().nanoTime()) ? owned.epochs().keySet() : Set.of(),
        parts.leases().share(),
        parts.leases().sinceLastRenewal(),
        parts.metrics().lastError(),
        parts.metrics().published(),
        parts.metrics().failed(),
        parts.health().failuresInARow(),
        parts.health().failing(),
        parts.health().sinceLastGoodCycle());
  }
}
