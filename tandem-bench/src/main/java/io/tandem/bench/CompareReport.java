package io.tandem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code tandem compare} measured: the same transfer (debit on PostgreSQL, credit on MariaDB)
 * as 2PC, as an orchestrated saga and as outbox + inbox, one after another on the same servers.
 *
 * @param approaches one entry per approach, in the order run
 * @param transfers transfers per approach
 * @param concurrency transfers in flight at once (closed loop: each worker waits for its transfer
 *     to be credited before it starts the next)
 */
public record CompareReport(List<Approach> approaches, int transfers, int concurrency) {

  public CompareReport {
    approaches = List.copyOf(approaches);
  }

  /**
   * One approach's figures.
   *
   * @param name {@code 2pc}, {@code saga} or {@code outbox}
   * @param transfersPerSec transfers credited per second, first start to last credit
   * @param p50Millis median time from a transfer's start until its credit committed
   * @param p99Millis its 99th percentile
   * @param lockMillis median time the debited row stayed locked (from the debit to the commit of
   *     the transaction that made it)
   * @param intermediateReads reads of a reader running beside the transfers (PostgreSQL's total,
   *     then MariaDB's) that found money debited and not yet credited
   * @param reads all the reader's reads
   * @param recoveryMillis after the driving component was killed in the middle of a transfer, time
   *     until both sides were consistent (money conserved) and unblocked (the transfer's rows
   *     lockable on both databases); -1 when that did not happen within three minutes
   * @param kill what the kill was
   */
  public record Approach(
      String name,
      double transfersPerSec,
      double p50Millis,
      double p99Millis,
      double lockMillis,
      long intermediateReads,
      long reads,
      long recoveryMillis,
      String kill) {}

  /** One JSON object: {@code approaches}, each with exactly the keys the issue lists. */
  public String toJson() {
    List<String> entries = new ArrayList<>();
    for (Approach a : approaches) {
      entries.add(
          String.format(
              Locale.ROOT,
              "{\"name\": \"%s\", \"transfers_per_s\": %.1f, \"p50_ms\": %.2f, \"p99_ms\": %.2f,"
                  + " \"lock_ms\": %.2f, \"intermediate_reads\": %d, \"recovery_ms\": %d}",
              a.name(),
              a.transfersPerSec(),
              a.p50Millis(),
              a.p99Millis(),
              a.lockMillis(),
              a.intermediateReads(),
              a.recoveryMillis()));
    }
    return "{\"approaches\": [" + String.join(", ", entries) + "]}";
  }

  public String toTable() {
    StringBuilder b = new StringBuilder();
    String format = "%-7s %12s %9s %9s %9s %20s %12s%n";
    b.append(
        String.format(
            Locale.ROOT,
            format,
            "",
            "transfers/s",
            "p50_ms",
            "p99_ms",
            "lock_ms",
            "intermediate_reads",
            "recovery_ms"));
    for (Approach a : approaches) {
      b.append(
          String.format(
              Locale.ROOT,
              format,
              a.name(),
              String.format(Locale.ROOT, "%.1f", a.transfersPerSec()),
              String.format(Locale.ROOT, "%.2f", a.p50Millis()),
              String.format(Locale.ROOT, "%.2f", a.p99Millis()),
              String.format(Locale.ROOT, "%.2f", a.lockMillis()),
              a.intermediateReads() + " of " + a.reads(),
              Long.toString(a.recoveryMillis())));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "%n%d transfers per approach, %d in flight at once.%n",
            transfers,
            concurrency));
    for (Approach a : approaches) {
      b.append(a.name()).append(" kill: ").append(a.kill()).append('\n');
    }
    return b.toString();
  }
}
