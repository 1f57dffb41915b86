package io.tandem.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** A fixed number of operations on a fixed number of threads: throughput and latencies. */
final class LoadRun {
  /** One operation of the run. */
  @FunctionalInterface
  interface Operation {
    void run() throws Exception;
  }

  /** What a run measured. */
  record Result(int operations, double perSecond, Percentiles latencies, int failures) {}

  private LoadRun() {}

  static Result run(int operations, int threads, Operation op) throws Exception {
    AtomicInteger left = new AtomicInteger(operations);
    AtomicInteger failures = new AtomicInteger();
    List<Double> latencies = Collections.synchronizedList(new ArrayList<>(operations));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long start = System.nanoTime();
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        workers.add(
            pool.submit(
                () -> {
                  while (left.getAndDecrement() > 0) {
                    long began = System.nanoTime();
                    try {
                      op.run();
                      latencies.add((System.nanoTime() - began) / 1e6);
                    } catch (Exception e) {
                      if (failures.incrementAndGet() == 1) {
                        System.err.println("[bench] a transfer failed: " + e);
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> w : workers) {
        w.get();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Result(
          latencies.size(), latencies.size() / seconds, new Percentiles(latencies), failures.get());
    } finally {
      pool.shutdownNow();
    }
  }
}
