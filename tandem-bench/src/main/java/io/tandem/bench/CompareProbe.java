package io.tandem.bench;

import io.tandem.core.FaultInjector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@code tandem compare} measures inside the approaches: when each transfer's credit committed
 * (completing its future), and how long each debit held its row lock. Both are read at the
 * consumers' {@code consumer.after-commit} point, which the inbox reaches on the thread that just
 * committed, right after the commit: a handler notes what it did in a thread-local list, the point
 * turns the notes into times. Thread-safe.
 */
final class CompareProbe {
  private final Map<String, CompletableFuture<Long>> completions = new ConcurrentHashMap<>();
  private final List<Double> lockMillis = Collections.synchronizedList(new ArrayList<>());
  private final ThreadLocal<List<Long>> debitsBegun = ThreadLocal.withInitial(ArrayList::new);
  private final ThreadLocal<List<String>> creditsApplied = ThreadLocal.withInitial(ArrayList::new);

  /** The future a transfer's credit completes, with the nanoTime of its commit. */
  CompletableFuture<Long> expect(String transfer) {
    return completions.computeIfAbsent(transfer, t -> new CompletableFuture<>());
  }

  void forget(String transfer) {
    completions.remove(transfer);
  }

  /** In a debit handler: the row lock is taken now and held until this thread commits. */
  void debitBegun() {
    debitsBegun.get().add(System.nanoTime());
  }

  /** In a credit handler: this transfer is credited when this thread commits. */
  void creditApplied(String transfer) {
    creditsApplied.get().add(transfer);
  }

  /** A lock held from {@code beganNanos} until now (a debit whose commit the caller saw). */
  void lockHeld(long beganNanos) {
    lockMillis.add((System.nanoTime() - beganNanos) / 1e6);
  }

  /** The credit of {@code transfer} committed now (for an approach that commits it itself). */
  void credited(String transfer) {
    expect(transfer).complete(System.nanoTime());
  }

  /** A fault injector for a consumer: at after-commit, turns this thread's notes into times. */
  FaultInjector afterCommit() {
    return point -> {
      if (!point.equals(FaultInjector.CONSUMER_AFTER_COMMIT)) {
        return;
      }
      List<Long> begun = debitsBegun.get();
      begun.forEach(this::lockHeld);
      begun.clear();
      List<String> credited = creditsApplied.get();
      credited.forEach(this::credited);
      credited.clear();
    };
  }

  /** Forgets a failed transaction's notes (its locks were released by the rollback). */
  void rolledBack() {
    debitsBegun.get().clear();
    creditsApplied.get().clear();
  }

  /** The lock times so far, and a fresh start. */
  Percentiles drainLocks() {
    synchronized (lockMillis) {
      Percentiles p = new Percentiles(lockMillis);
      lockMillis.clear();
      return p;
    }
  }
}
