package io.tandem.bench;

import io.tandem.bench.SagaBenchSystem.Checkout;
import io.tandem.saga.SagaOrchestrator;
import io.tandem.saga.SagaStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives sagas through the bench system: {@link SagaBenchmark#STARTERS} threads start checkouts,
 * round-robin over the orchestrator instances, at most {@code inFlight} running at once; a slot is
 * freed the moment a saga ends (the orchestrators' {@code afterEnd} hook, after the commit that
 * ended it), as the floor frees its slot on its last commit. A saga's duration runs from the call
 * that starts it to that commit.
 */
final class SagaDriver {
  private static final Duration STALL_TIMEOUT = Duration.ofSeconds(120);

  /** The span from the first start to the last completion, and the durations' percentiles. */
  record Measured(double seconds, double p50, double p99) {}

  private final SagaBenchSystem system;
  private final int inFlight;
  private final String run;
  private final AtomicLong orderSeq = new AtomicLong();

  SagaDriver(SagaBenchSystem system, int inFlight, String run) {
    this.system = system;
    this.inFlight = inFlight;
    this.run = run;
  }

  /** Runs {@code count} sagas and waits until all completed. */
  Measured drive(int count) throws Exception {
    Map<UUID, Long> startedNanos = new ConcurrentHashMap<>();
    Semaphore permits = new Semaphore(inFlight);
    long completed0 = system.ends.completed();
    system.ends.onEnd(permits::release);
    AtomicInteger started = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    List<SagaOrchestrator> orchestrators = system.orchestrators;
    ExecutorService starters = Executors.newFixedThreadPool(SagaBenchmark.STARTERS);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < SagaBenchmark.STARTERS; t++) {
      futures.add(
          starters.submit(
              () -> {
                while (!stop.get()) {
                  permits.acquire();
                  int n = started.getAndIncrement();
                  if (n >= count) {
                    return null;
                  }
                  Checkout data = checkout();
                  long t0 = System.nanoTime();
                  UUID id =
                      orchestrators
                          .get(n % orchestrators.size())
                          .start(SagaBenchSystem.SAGA_TYPE, data);
                  startedNanos.put(id, t0);
                }
                return null;
              }));
    }
    try {
      long lastProgress = System.nanoTime();
      long lastDone = -1;
      while (true) {
        long done = system.ends.completed() - completed0;
        if (system.ends.offPath() > 0) {
          throw new IllegalStateException(
              system.ends.offPath()
                  + " sagas ended compensated or stuck: every step should succeed in this"
                  + " benchmark");
        }
        if (done >= count) {
          break;
        }
        for (Future<?> f : futures) {
          if (f.isDone()) {
            f.get(); // a starter that failed
          }
        }
        if (done != lastDone) {
          lastDone = done;
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > STALL_TIMEOUT.toNanos()) {
          throw new IllegalStateException(
              "no saga completed for " + STALL_TIMEOUT + " (" + done + " of " + count + ")");
        }
        TimeUnit.MILLISECONDS.sleep(20); // the watcher's sampling interval, not the slots'
      }
    } finally {
      stop.set(true);
      system.ends.onEnd(() -> {});
      permits.release(count + SagaBenchmark.STARTERS);
      starters.shutdown();
      if (!starters.awaitTermination(30, TimeUnit.SECONDS)) {
        starters.shutdownNow();
      }
    }
    return span(startedNanos, count);
  }

  private Checkout checkout() {
    long n = orderSeq.incrementAndGet();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return new Checkout(
        "order-" + run + "-" + n,
        "customer-" + (n % 997),
        "sku-" + random.nextInt(SagaBenchSystem.SKUS),
        1 + random.nextInt(3),
        100 + random.nextInt(100_000));
  }

  /** Durations from each start's call to the commit that ended the saga (the afterEnd hook). */
  private Measured span(Map<UUID, Long> startedNanos, int count) {
    List<Double> millis = new ArrayList<>();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (Map.Entry<UUID, Long> s : startedNanos.entrySet()) {
      Long end = system.ends.endedNanos(s.getKey());
      if (end == null) {
        throw new IllegalStateException("saga " + s.getKey() + " has no end recorded");
      }
      millis.add((end - s.getValue()) / 1e6);
      first = Math.min(first, s.getValue());
      last = Math.max(last, end);
    }
    if (millis.size() != count) {
      throw new IllegalStateException(millis.size() + " sagas started, " + count + " expected");
    }
    Percentiles p = new Percentiles(millis);
    return new Measured((last - first) / 1e9, p.at(0.50), p.at(0.99));
  }

  /** Counts the ends the orchestrators report and frees a slot for each. Thread-safe. */
  static final class Ends {
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong offPath = new AtomicLong();
    private volatile Runnable onEnd = () -> {};

    private final Map<UUID, Long> endedNanos = new ConcurrentHashMap<>();

    void ended(UUID sagaId, SagaStatus status) {
      endedNanos.put(sagaId, System.nanoTime());
      if (status == SagaStatus.COMPLETED) {
        completed.incrementAndGet();
      } else {
        offPath.incrementAndGet();
      }
      onEnd.run();
    }

    void onEnd(Runnable onEnd) {
      this.onEnd = onEnd;
    }

    Long endedNanos(UUID sagaId) {
      return endedNanos.get(sagaId);
    }

    long completed() {
      return completed.get();
    }

    long offPath() {
      return offPath.get();
    }
  }
}
