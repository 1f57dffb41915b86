package io.tandem.bench;

import io.tandem.core.FaultInjector;
import io.tandem.xa.XaCoordinator;
import io.tandem.xa.XaSettings;
import java.time.Duration;

/** The transfer as one two-phase transaction over both databases. */
final class CompareTwoPhase implements CompareApproach {
  static final Duration PRESUME_ABORT_AFTER = Duration.ofSeconds(5);
  private static final String NODE = "compare-2pc";

  private final TransferDatabases db;
  private final CompareProbe probe;
  private final XaCoordinator coordinator;

  CompareTwoPhase(TransferDatabases db, CompareProbe probe, int concurrency) {
    this.db = db;
    this.probe = probe;
    this.coordinator = db.coordinator(settings(concurrency));
  }

  private static XaSettings settings(int concurrency) {
    return XaSettings.builder(NODE)
        .presumeAbortAfter(PRESUME_ABORT_AFTER)
        .recoveryInterval(Duration.ofSeconds(1))
        .maxConnectionsPerParticipant(Math.max(16, concurrency + 2))
        .build();
  }

  @Override
  public String name() {
    return "2pc";
  }

  @Override
  public void transfer(String id, String account) throws Exception {
    run(coordinator, account);
    probe.credited(id);
  }

  private void run(XaCoordinator xa, String account) throws Exception {
    long[] debited = new long[1];
    xa.inTransaction(
        tx -> {
          TransferDatabases.update(tx.connection("accounts"), TransferDatabases.DEBIT, 1, account);
          debited[0] = System.nanoTime();
          TransferDatabases.update(tx.connection("ledger"), TransferDatabases.CREDIT, 1, account);
          return null;
        });
    probe.lockHeld(debited[0]); // the PostgreSQL branch committed in phase 2, just before
  }

  @Override
  public long killMidTransfer(String id, String account) throws Exception {
    // Another coordinator process of the same node dies after prepare, before its decision; this
    // one (its node's surviving process) recovers it.
    try (XaCoordinator doomed =
        XaCoordinator.builder()
            .settings(settings(1))
            .decisionLog(db.pgPool)
            .participant("accounts", db.accountsXa())
            .participant("ledger", db.ledgerXa())
            .faults(
                p -> {
                  if (p.equals(FaultInjector.XA_AFTER_PREPARE)) {
                    throw new FaultInjector.SimulatedCrash(p);
                  }
                })
            .build()) {
      doomed.start();
      try {
        run(doomed, account);
      } catch (FaultInjector.SimulatedCrash expected) {
        return System.nanoTime();
      }
    }
    throw new IllegalStateException("the coordinator did not die after prepare");
  }

  @Override
  public String killDescription() {
    return "coordinator killed after prepare, before its decision; recovery presumes abort after "
        + PRESUME_ABORT_AFTER.toSeconds()
        + " s";
  }

  @Override
  public void close() {
    coordinator.close();
  }
}
