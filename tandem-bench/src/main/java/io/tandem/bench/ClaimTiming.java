package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.OutboxStatements;
import io.tandem.jdbc.PostgresDialect;
import io.tandem.outbox.OutboxRelay;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/** The relay benchmark's claim-query figure: the relay's own claim statement, timed. */
final class ClaimTiming {
  private ClaimTiming() {}

  /**
   * Marks every row of {@code db} published the way a relay does (a relay whose transport
   * acknowledges every event at once), to build a table with a published history.
   */
  static void publishAll(BenchDatabase db, String relayId) {
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.pool)
            .transport(new Acknowledging())
            .relayId(relayId)
            .listenForInserts(false)
            .build();
    try {
      while (relay.runOnce() > 0) {
        // until nothing is due
      }
      if (db.pending() != 0) {
        throw new IllegalStateException("a relay left rows unpublished in " + db.database);
      }
    } finally {
      relay.close();
    }
  }

  /** A transport that acknowledges every event without sending it anywhere. */
  private static final class Acknowledging implements Transport {
    @Override
    public String name() {
      return "acknowledging";
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
      return events.stream().map(e -> PublishOutcome.acknowledged(e.eventId())).toList();
    }

    @Override
    public void close() {}
  }

  /** Claim queries measured per warm-up round and per sample, over every table in turn. */
  private static final int CLAIM_WARM_UP = 5;

  private static final int CLAIM_SAMPLES = 100;

  /**
   * The median time of the relay's claim query (a full batch, every partition) on each of {@code
   * dbs}, one query on each in turn.
   */
  static double[] medianMillis(List<BenchDatabase> dbs, int batch) throws SQLException {
    List<Integer> all = IntStream.range(0, 64).boxed().toList();
    OutboxStatements outbox = PostgresDialect.INSTANCE.outbox();
    List<Connection> connections = new ArrayList<>();
    List<List<Double>> samples = new ArrayList<>();
    try {
      for (BenchDatabase db : dbs) {
        // As autovacuum would have done by then: dead index entries of rows published a moment
        // ago are a different cost from the size of the published history this figure is about.
        db.execute("VACUUM ANALYZE tandem_outbox");
        connections.add(db.pool.getConnection());
        samples.add(new ArrayList<>());
      }
      for (int i = 0; i < CLAIM_WARM_UP + CLAIM_SAMPLES; i++) {
        for (int d = 0; d < dbs.size(); d++) {
          long start = System.nanoTime();
          // the statement is prepared again each time (a relay does the same); the driver keeps
          // the server-side statement of the connection
          int rows = outbox.claim(connections.get(d), all, 0, batch, ClaimTiming::count);
          if (rows == 0) {
            throw new IllegalStateException("the claim query found nothing to claim");
          }
          if (i >= CLAIM_WARM_UP) {
            samples.get(d).add((System.nanoTime() - start) / 1e6);
          }
        }
      }
    } finally {
      for (Connection c : connections) {
        c.close();
      }
    }
    return samples.stream().mapToDouble(s -> new Percentiles(s).at(0.5)).toArray();
  }

  private static int count(ResultSet rs) throws SQLException {
    int rows = 0;
    while (rs.next()) {
      rows++;
    }
    return rows;
  }
}
