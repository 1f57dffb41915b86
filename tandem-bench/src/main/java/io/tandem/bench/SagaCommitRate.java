package io.tandem.bench;

import io.tandem.jdbc.Transactions;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/** The saga benchmark's commit measurement: what the databases commit with no saga running. */
final class SagaCommitRate {
  static final int COUNTERS = 1_000;

  private final String run;

  SagaCommitRate(String run) {
    this.run = run;
  }

  /** Creates each database's tables for the measurement. */
  static void createTables(SagaBenchSystem system) throws java.sql.SQLException {
    for (BenchDatabase db : system.databases) {
      db.execute(
          "CREATE TABLE bench_commit (id bigserial PRIMARY KEY, writer integer NOT NULL,"
              + " n bigint NOT NULL, payload text NOT NULL)");
      db.execute("CREATE TABLE bench_counter (id integer PRIMARY KEY, n bigint NOT NULL)");
      db.execute(
          "INSERT INTO bench_counter SELECT g, 0 FROM generate_series(0, "
              + (COUNTERS - 1)
              + ") g");
    }
  }

  /**
   * {@code writers} threads, writer w on database w mod 5, each committing small transactions
   * (insert a row, update a random counter row, and with {@code notify} a {@code pg_notify} on a
   * channel nobody listens to) for {@code window}.
   *
   * @return commits per second of all writers together, and the CPU time they cost
   */
  Rate measure(
      SagaBenchSystem system, SagaCpuMeter cpu, int writers, Duration window, boolean notify)
      throws Exception {
    String payload =
        "{\"orderId\":\"order-"
            + run
            + "\",\"customer\":\"customer-1\",\"sku\":\"sku-1\",\"quantity\":1,"
            + "\"amountCents\":1999}";
    AtomicLong commits = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    SagaCpuMeter.Sample cpu0 = cpu.sample();
    long start = System.nanoTime();
    long end = start + window.toNanos();
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      BenchDatabase db = system.databases.get(w % system.databases.size());
      futures.add(
          pool.submit(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (long n = 0; System.nanoTime() < end; n++) {
                  long seq = n;
                  Transactions.inTransaction(
                      db.pool,
                      c -> {
                        try (PreparedStatement ps =
                            c.prepareStatement(
                                "INSERT INTO bench_commit (writer, n, payload) VALUES (?, ?, ?)")) {
                          ps.setInt(1, writer);
                          ps.setLong(2, seq);
                          ps.setString(3, payload);
                          ps.executeUpdate();
                        }
                        try (PreparedStatement ps =
                            c.prepareStatement("UPDATE bench_counter SET n = n + 1 WHERE id = ?")) {
                          ps.setInt(1, random.nextInt(COUNTERS));
                          ps.executeUpdate();
                        }
                        if (notify) {
                          try (PreparedStatement ps =
                              c.prepareStatement("SELECT pg_notify('bench_commit', '')")) {
                            ps.execute();
                          }
                        }
                        return null;
                      });
                  commits.incrementAndGet();
                }
                return null;
              }));
    }
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Rate(
        commits.get() / seconds,
        commits.get(),
        seconds,
        cpu.sample().minus(cpu0),
        cpu.countsPostgres());
  }

  /** A commit measurement: commits/s, commits, seconds, and the CPU time used meanwhile. */
  record Rate(
      double perSec, long commits, double seconds, SagaCpuMeter.Sample cpu, boolean cpuKnown) {
    double cpuMillisPerCommit() {
      return cpu.total() / 1e6 / commits;
    }

    String cpuNote() {
      return cpuKnown
          ? String.format(Locale.ROOT, ", %.3f ms CPU per commit", cpuMillisPerCommit())
          : "";
    }
  }
}
