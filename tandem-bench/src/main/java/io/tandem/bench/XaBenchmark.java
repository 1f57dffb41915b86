package io.tandem.bench;

import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.TestInfrastructure;
import io.tandem.xa.XaCoordinator;
import io.tandem.xa.XaSettings;
import java.io.PrintStream;

/**
 * Two-phase transfers (debit on PostgreSQL, credit on MariaDB through {@link XaCoordinator})
 * against the bound of the same transfers as two local commits with no coordination, on the same
 * databases with the same threads, in one run. Prepare, decision and commit cost about three
 * durable writes per transfer where the bound needs two.
 */
public final class XaBenchmark {
  private final int transfers;
  private final int concurrency;
  private final String jdbcUrl;
  private final String mariadbUrl;
  private final PrintStream progress;

  /**
   * @param jdbcUrl a PostgreSQL server with {@code max_prepared_transactions > 0}, or null for an
   *     embedded one (fsync on)
   * @param mariadbUrl a MariaDB server, or null for {@code TANDEM_MARIADB_URL} or the default
   */
  public XaBenchmark(
      int transfers, int concurrency, String jdbcUrl, String mariadbUrl, PrintStream progress) {
    if (transfers < 100 || transfers > 10_000_000) {
      throw new IllegalArgumentException(
          "--transfers must be between 100 and 10000000, was " + transfers);
    }
    if (concurrency < 1 || concurrency > 256) {
      throw new IllegalArgumentException(
          "--concurrency must be between 1 and 256, was " + concurrency);
    }
    this.transfers = transfers;
    this.concurrency = concurrency;
    this.jdbcUrl = jdbcUrl;
    this.mariadbUrl = mariadbUrl;
    this.progress = progress;
  }

  /** A PostgreSQL for two-phase benchmarks: the given one, or an embedded one that can prepare. */
  static PostgresServer postgres(String jdbcUrl) {
    return jdbcUrl == null
        ? PostgresServer.embedded()
            .durable(true)
            .serverConfig("max_prepared_transactions", "300")
            .serverConfig("max_connections", "400")
            .start()
        : PostgresServer.external(jdbcUrl);
  }

  static MariaDbServer mariadb(String url) {
    return MariaDbServer.external(
        url != null
            ? url
            : System.getenv()
                .getOrDefault(
                    TestInfrastructure.MARIADB_URL_VARIABLE,
                    TestInfrastructure.DEFAULT_MARIADB_URL));
  }

  public XaBenchReport run() throws Exception {
    try (PostgresServer pg = postgres(jdbcUrl);
        TransferDatabases db =
            new TransferDatabases(pg, mariadb(mariadbUrl), "bench_xa", 10_000, concurrency + 2);
        XaCoordinator xa =
            db.coordinator(
                XaSettings.builder("bench-xa")
                    .maxConnectionsPerParticipant(Math.max(16, concurrency + 2))
                    .build())) {
      say("warming up (%d transfers each way)", Math.min(2000, transfers / 2));
      LoadRun.run(
          Math.min(2000, transfers / 2), concurrency, () -> db.localTransfer(db.account(), 1));
      LoadRun.run(
          Math.min(2000, transfers / 2), concurrency, () -> db.xaTransfer(xa, db.account(), 1));
      say("bound: %d transfers as two local commits, %d threads", transfers, concurrency);
      LoadRun.Result bound =
          LoadRun.run(transfers, concurrency, () -> db.localTransfer(db.account(), 1));
      say("bound: %.1f transfers/s", bound.perSecond());
      say("two-phase: %d transfers, %d threads", transfers, concurrency);
      LoadRun.Result twoPhase =
          LoadRun.run(transfers, concurrency, () -> db.xaTransfer(xa, db.account(), 1));
      say("two-phase: %.1f transfers/s", twoPhase.perSecond());
      if (bound.failures() + twoPhase.failures() > 0) {
        throw new IllegalStateException(
            (bound.failures() + twoPhase.failures()) + " transfers failed; see the first above");
      }
      boolean conserved = db.sum() == db.total();
      return new XaBenchReport(
          transfers,
          concurrency,
          twoPhase.perSecond(),
          twoPhase.latencies().at(0.50),
          twoPhase.latencies().at(0.99),
          bound.perSecond(),
          bound.latencies().at(0.50),
          bound.latencies().at(0.99),
          conserved,
          (pg.isEmbedded() ? "embedded PostgreSQL" : "PostgreSQL " + redact(pg.jdbcUrl()))
              + " + MariaDB");
    }
  }

  private static String redact(String url) {
    return io.tandem.core.Redaction.redact(url);
  }

  private void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(java.util.Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
