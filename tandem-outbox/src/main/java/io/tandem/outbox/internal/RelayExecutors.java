package io.tandem.outbox.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * The relay's publisher and recorder executors: each the given one (its owner shuts it down), or
 * daemon threads of the relay's own, {@code tandem-relay-<id>-publisher} ({@value
 * BatchPipeline#DEPTH}) and {@code tandem-relay-<id>-recorder} (one), shut down as the relay stops.
 * Thread-safe.
 */
public final class RelayExecutors {
  private final ExecutorService publishers;
  private final ExecutorService recorder;
  private final boolean ownPublishers;
  private final boolean ownRecorder;

  /** The settings' executors, or the relay's own where none is given. */
  public RelayExecutors(RelaySettings settings) {
    String prefix = "tandem-relay-" + settings.relayId();
    this.ownPublishers = settings.publishExecutor() == null;
    this.ownRecorder = settings.recordExecutor() == null;
    this.publishers =
        ownPublishers
            ? Executors.newFixedThreadPool(BatchPipeline.DEPTH, daemon(prefix + "-publisher"))
            : settings.publishExecutor();
    this.recorder =
        ownRecorder
            ? Executors.newSingleThreadExecutor(daemon(prefix + "-recorder"))
            : settings.recordExecutor();
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  public ExecutorService publishers() {
    return publishers;
  }

  public ExecutorService recorder() {
    return recorder;
  }

  /** Lets queued work finish, then ends the relay's own threads. */
  public void shutdown() {
    if (ownPublishers) {
      publishers.shutdown();
    }
    if (ownRecorder) {
      recorder.shutdown();
    }
  }

  /** Ends the relay's own threads at once (a simulated crash). */
  public void shutdownNow() {
    if (ownPublishers) {
      publishers.shutdownNow();
    }
    if (ownRecorder) {
      recorder.shutdownNow();
    }
  }
}
