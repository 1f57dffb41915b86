package io.tandem.bench;

import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * CPU time used by the benchmark's own processes: this JVM, its child processes (the embedded Kafka
 * broker) and, when the PostgreSQL server runs on this machine for this benchmark alone, the
 * postmaster and its backends. Live processes only: a backend that exits takes its time with it
 * (the benchmark's pools keep theirs open).
 */
final class SagaCpuMeter {
  /** CPU times at one moment, in nanoseconds. */
  record Sample(long jvm, long children, long postgres) {
    long total() {
      return jvm + children + postgres;
    }

    Sample minus(Sample earlier) {
      return new Sample(
          jvm - earlier.jvm, children - earlier.children, postgres - earlier.postgres);
    }
  }

  private final ProcessHandle postmaster;

  /**
   * @param postmasterPid the server's postmaster, or null when its CPU time is not to be counted
   */
  SagaCpuMeter(Long postmasterPid) {
    this.postmaster = postmasterPid == null ? null : ProcessHandle.of(postmasterPid).orElse(null);
  }

  Sample sample() {
    ProcessHandle self = ProcessHandle.current();
    long children = self.children().mapToLong(SagaCpuMeter::cpu).sum();
    long postgres =
        postmaster == null
            ? 0
            : Stream.concat(Stream.of(postmaster), postmaster.children())
                .mapToLong(SagaCpuMeter::cpu)
                .sum();
    return new Sample(cpu(self), children, postgres);
  }

  boolean countsPostgres() {
    return postmaster != null;
  }

  private static long cpu(ProcessHandle p) {
    Optional<Duration> d = p.info().totalCpuDuration();
    return d.map(Duration::toNanos).orElse(0L);
  }
}
