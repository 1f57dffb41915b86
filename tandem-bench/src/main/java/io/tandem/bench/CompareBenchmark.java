package io.tandem.bench;

import io.tandem.core.Progress;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import javax.sql.DataSource;

/**
 * {@code tandem compare}: the same money transfer — debit an account on PostgreSQL, credit it on
 * MariaDB — as 2PC ({@link CompareTwoPhase}), as an orchestrated saga ({@link CompareSaga}) and as
 * outbox + inbox ({@link CompareOutbox}), each on fresh databases of the same servers and the same
 * Kafka. Per approach: a closed-loop run (throughput, latency until credited, lock time) with a
 * reader beside it counting intermediate states, then one kill of its driving component in the
 * middle of a transfer and the time until both sides are consistent and unblocked.
 */
public final class CompareBenchmark {
  private static final long RECOVERY_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(3);
  private static final long CREDIT_TIMEOUT_SECONDS = 120;

  private final int transfers;
  private final int concurrency;
  private final String jdbcUrl;
  private final String mariadbUrl;
  private final String kafkaBootstrap;
  private Map<String, String> kafkaClient = Map.of();
  private final PrintStream progress;
  private volatile Progress bar; // while run() goes through the approaches

  public CompareBenchmark(
      int transfers,
      int concurrency,
      String jdbcUrl,
      String mariadbUrl,
      String kafkaBootstrap,
      PrintStream progress) {
    if (transfers < 50 || transfers > 1_000_000) {
      throw new IllegalArgumentException(
          "--transfers must be between 50 and 1000000, was " + transfers);
    }
    if (concurrency < 1 || concurrency > 64) {
      throw new IllegalArgumentException(
          "--concurrency must be between 1 and 64, was " + concurrency);
    }
    this.transfers = transfers;
    this.concurrency = concurrency;
    this.jdbcUrl = jdbcUrl;
    this.mariadbUrl = mariadbUrl;
    this.kafkaBootstrap = kafkaBootstrap;
    this.progress = progress;
  }

  /**
   * Client settings (TLS, SASL: {@code security.protocol}, {@code sasl.jaas.config}, ...) every
   * Kafka client of the benchmark gets, for the Kafka it was given; none by default.
   */
  public CompareBenchmark kafkaClientProperties(Map<String, String> kafkaClientProperties) {
    this.kafkaClient = Map.copyOf(kafkaClientProperties);
    return this;
  }

  public CompareReport run() throws Exception {
    List<CompareReport.Approach> results = new ArrayList<>();
    try (PostgresServer pg = XaBenchmark.postgres(jdbcUrl);
        KafkaBroker kafka =
            kafkaBootstrap == null
                ? KafkaBroker.embedded().start()
                : KafkaBroker.external(kafkaBootstrap, kafkaClient)) {
      MariaDbServer maria = XaBenchmark.mariadb(mariadbUrl);
      String run = UUID.randomUUID().toString().substring(0, 8);
      List<BiFunction<TransferDatabases, CompareProbe, CompareApproach>> approaches =
          List.of(
              (db, probe) -> new CompareTwoPhase(db, probe, concurrency),
              (db, probe) -> new CompareSaga(db, probe, kafka, "compare." + run + ".saga.", 4),
              (db, probe) -> new CompareOutbox(db, probe, kafka, "compare." + run + ".outbox.", 4));
      bar = progress == null ? null : Progress.start("[compare] approaches", 3, progress);
      for (var make : approaches) {
        try (TransferDatabases db =
            new TransferDatabases(pg, maria, "compare", 1000, concurrency + 24)) {
          CompareProbe probe = new CompareProbe();
          try (CompareApproach approach = make.apply(db, probe)) {
            results.add(measure(db, probe, approach));
          }
        }
        if (bar != null) {
          bar.advance(1);
        }
      }
    } finally {
      if (bar != null) {
        bar.close();
        bar = null;
      }
    }
    return new CompareReport(results, transfers, concurrency);
  }

  private CompareReport.Approach measure(
      TransferDatabases db, CompareProbe probe, CompareApproach approach) throws Exception {
    int warmup = Math.max(20, transfers / 10);
    say("%s: warming up (%d transfers)", approach.name(), warmup);
    load(db, probe, approach, warmup);
    probe.drainLocks();
    say(
        "%s: %d transfers, %d in flight, a reader beside them",
        approach.name(), transfers, concurrency);
    Reader reader = new Reader(db);
    Thread readerThread = new Thread(reader, "compare-reader");
    readerThread.start();
    LoadRun.Result r;
    try {
      r = load(db, probe, approach, transfers);
    } finally {
      reader.stop.set(true);
      readerThread.join();
    }
    Percentiles locks = probe.drainLocks();
    say(
        "%s: %.1f transfers/s, p50 %.2f ms, lock p50 %.2f ms, %d of %d reads mid-flight",
        approach.name(),
        r.perSecond(),
        r.latencies().at(0.5),
        locks.at(0.5),
        reader.intermediate.get(),
        reader.reads.get());
    if (r.failures() > 0) {
      throw new IllegalStateException(
          approach.name() + ": " + r.failures() + " transfers failed; see the first above");
    }
    awaitConsistent(db, "acc-1");
    say("%s: %s", approach.name(), approach.killDescription());
    String id = UUID.randomUUID().toString();
    String account = db.account();
    long killed = approach.killMidTransfer(id, account);
    long recovered = -1;
    while (System.nanoTime() - killed < RECOVERY_TIMEOUT_NANOS) {
      if (consistent(db) && unblocked(db, account)) {
        recovered = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        break;
      }
      Thread.sleep(20); // the interval of the check, not a wait for a known event
    }
    say("%s: consistent and unblocked %d ms after the kill", approach.name(), recovered);
    return new CompareReport.Approach(
        approach.name(),
        r.perSecond(),
        r.latencies().at(0.5),
        r.latencies().at(0.99),
        locks.at(0.5),
        reader.intermediate.get(),
        reader.reads.get(),
        recovered,
        approach.killDescription());
  }

  /** A closed-loop run: each worker starts a transfer and waits until it is credited. */
  private LoadRun.Result load(
      TransferDatabases db, CompareProbe probe, CompareApproach approach, int n) throws Exception {
    AtomicInteger left = new AtomicInteger(n);
    AtomicInteger failures = new AtomicInteger();
    List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    try {
      long start = System.nanoTime();
      AtomicLong lastCredit = new AtomicLong(start);
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < concurrency; t++) {
        workers.add(
            pool.submit(
                () -> {
                  while (left.getAndDecrement() > 0) {
                    String id = UUID.randomUUID().toString();
                    var credited = probe.expect(id);
                    long began = System.nanoTime();
                    try {
                      approach.transfer(id, db.account());
                      long at = credited.get(CREDIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                      latencies.add((at - began) / 1e6);
                      lastCredit.accumulateAndGet(at, Math::max);
                    } catch (Exception e) {
                      probe.rolledBack();
                      if (failures.incrementAndGet() == 1) {
                        System.err.println("[compare] a transfer failed: " + e);
                      }
                    } finally {
                      probe.forget(id);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> w : workers) {
        w.get();
      }
      double seconds = (lastCredit.get() - start) / 1e9;
      return new LoadRun.Result(
          latencies.size(), latencies.size() / seconds, new Percentiles(latencies), failures.get());
    } finally {
      pool.shutdownNow();
    }
  }

  private static boolean consistent(TransferDatabases db) {
    try {
      return db.sum() == db.total();
    } catch (SQLException e) {
      return false;
    }
  }

  private static void awaitConsistent(TransferDatabases db, String account) throws Exception {
    long deadline = System.nanoTime() + RECOVERY_TIMEOUT_NANOS;
    while (!(consistent(db) && unblocked(db, account))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the run did not settle: money is not conserved");
      }
      Thread.sleep(20);
    }
  }

  /** Whether the account's rows can be locked now on both databases. */
  private static boolean unblocked(TransferDatabases db, String account) {
    return lockable(db.pgPool, "SELECT 1 FROM accounts WHERE id = ? FOR UPDATE NOWAIT", account)
        && lockable(db.mariaPool, "SELECT 1 FROM ledger WHERE id = ? FOR UPDATE NOWAIT", account);
  }

  private static boolean lockable(DataSource ds, String sql, String account) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, account);
        ps.executeQuery().close();
        return true;
      } catch (SQLException locked) {
        return false;
      } finally {
        c.rollback();
      }
    } catch (SQLException e) {
      return false;
    }
  }

  /**
   * Reads PostgreSQL's total, then MariaDB's, over and over: money debited and not yet credited
   * shows as a total below the opening one. (A transfer that commits between the two reads can only
   * raise the sum, so a deficit is always real.)
   */
  private static final class Reader implements Runnable {
    final TransferDatabases db;
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong intermediate = new AtomicLong();

    Reader(TransferDatabases db) {
      this.db = db;
    }

    @Override
    public void run() {
      while (!stop.get()) {
        try {
          long pg = TransferDatabases.sum(db.pgPool, TransferDatabases.pgSum());
          long maria = TransferDatabases.sum(db.mariaPool, TransferDatabases.mariaSum());
          reads.incrementAndGet();
          if (pg + maria < db.total()) {
            intermediate.incrementAndGet();
          }
        } catch (SQLException e) {
          return;
        }
      }
    }
  }

  private void say(String format, Object... args) {
    Progress live = bar;
    if (live != null) {
      live.log("[compare] " + String.format(Locale.ROOT, format, args));
    } else if (progress != null) {
      progress.println("[compare] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
