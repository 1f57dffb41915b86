package io.tandem.outbox.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Waiting for the relay's own tasks, whose failures they log themselves. */
final class Futures {
  private Futures() {}

  /**
   * Waits until {@code future} is done. A failure was logged by its task (and a simulated crash
   * noted in the lifecycle); an interrupt is kept on the thread.
   */
  static void await(Future<?> future) {
    try {
      future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | CancellationException e) {
      // logged where it happened; a crash is rethrown by RelayLifecycle.rethrowCrash
    }
  }
}
