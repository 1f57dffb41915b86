package io.tandem.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The XA benchmark's figures, from one run on the same PostgreSQL and MariaDB.
 *
 * @param transfers transfers in each measured run
 * @param concurrency threads running transfers at once
 * @param transfersPerSec two-phase transfers per second (debit on PostgreSQL, credit on MariaDB)
 * @param p50Millis median two-phase transfer, begin to commit returned
 * @param p99Millis its 99th percentile
 * @param boundPerSec the same transfers as two local commits (one per database, no coordination),
 *     per second, measured in the same run with the same threads
 * @param boundP50Millis median of the bound's transfer
 * @param boundP99Millis its 99th percentile
 * @param moneyConserved whether both sides' balances add up to the opening total after the run
 * @param database where the figures come from
 */
public record XaBenchReport(
    int transfers,
    int concurrency,
    double transfersPerSec,
    double p50Millis,
    double p99Millis,
    double boundPerSec,
    double boundP50Millis,
    double boundP99Millis,
    boolean moneyConserved,
    String database) {

  /** Two-phase transfers/s against the bound of two local commits per transfer. */
  public double ratio() {
    return transfersPerSec / boundPerSec;
  }

  /** One JSON object; the first four keys are the benchmark's contract. */
  public String toJson() {
    return BenchOutput.json(map(true));
  }

  public String toTable() {
    return BenchOutput.table(map(false), 24);
  }

  private Map<String, Object> map(boolean json) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("transfers_per_s", round(transfersPerSec, 1));
    m.put("ratio", round(ratio(), 3));
    m.put("p50_ms", round(p50Millis, 2));
    m.put("p99_ms", round(p99Millis, 2));
    m.put("bound_transfers_per_s", round(boundPerSec, 1));
    m.put("bound_p50_ms", round(boundP50Millis, 2));
    m.put("bound_p99_ms", round(boundP99Millis, 2));
    m.put("transfers", transfers);
    m.put("concurrency", concurrency);
    m.put("money_conserved", moneyConserved);
    m.put("database", json ? "\"" + database + "\"" : database);
    return m;
  }

  private static String round(double v, int digits) {
    return String.format(Locale.ROOT, "%." + digits + "f", v);
  }
}
