package io.tandem.bench;

import io.tandem.saga.SagaQueries;
import java.sql.SQLException;
import java.util.List;

/**
 * The saga benchmark's validity check: every participant applied each saga exactly once (one
 * participation record per saga and participant, one business row per saga where the step inserts
 * one). A run that fails it is reported as invalid, never as a figure.
 */
final class SagaBenchVerification {
  private SagaBenchVerification() {}

  /**
   * Throws unless the order, payment, inventory and shipping databases ({@code databases} 1 to 4, 0
   * being the orchestrator's) show {@code sagas} applications each.
   */
  static void verify(List<BenchDatabase> databases, long sagas) throws SQLException {
    List<String> participants = SagaBenchSystem.PARTICIPANTS;
    for (int i = 0; i < participants.size(); i++) {
      BenchDatabase db = databases.get(i + 1);
      String participant = participants.get(i);
      long recorded = SagaQueries.of(db.pool).participationCount(participant);
      if (recorded != sagas) {
        throw new IllegalStateException(
            participant
                + " recorded "
                + recorded
                + " steps after "
                + sagas
                + " sagas: invalid run");
      }
    }
    check(databases.get(1), "bench_order", "bench_order", sagas);
    check(databases.get(2), "bench_payment", "bench_payment", sagas);
    check(databases.get(4), "bench_shipment", "bench_shipment", sagas);
  }

  private static void check(BenchDatabase db, String what, String table, long expected)
      throws SQLException {
    long rows = db.count("SELECT count(*) FROM " + table);
    if (rows != expected) {
      throw new IllegalStateException(
          what + " has " + rows + " rows after " + expected + " sagas: the run is invalid");
    }
  }
}
