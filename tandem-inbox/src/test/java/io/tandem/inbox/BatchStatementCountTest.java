package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.RetryPolicy;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a batch costs in round trips: the statements and transaction calls (commit, savepoints) the
 * processor sends for one batch of {@value #MESSAGES} messages over {@value #AGGREGATES}
 * aggregates, counted on the connection and printed, apart from the handler's own statements. The
 * bounds fail a change that adds a round trip per batch or per message. Subclassed per database.
 */
abstract class BatchStatementCountTest extends BatchFixture {
  static final int MESSAGES = 64;
  static final int AGGREGATES = 8;

  /** The most round trips of Tandem's own for a batch whose aggregates have positions. */
  abstract int steadyBound();

  /** The most round trips of Tandem's own for a batch of aggregates never seen. */
  abstract int newAggregatesBound();

  private CountingDataSource counting;

  private InboxProcessor build(boolean batchHandler) {
    counting = new CountingDataSource(db.dataSource);
    InboxProcessor.Builder b =
        InboxProcessor.builder()
            .dataSource(counting)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build());
    return (batchHandler
            ? b.onBatch("OrderPlaced", this::invoiceAll)
            : b.on("OrderPlaced", this::invoice))
        .build();
  }

  private void invoiceAll(java.sql.Connection c, List<Event> events) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO invoices (order_id, event_id) VALUES (?, ?)")) {
      for (Event e : events) {
        ps.setString(1, e.aggregateId() + "#" + e.aggregateVersion() + "@" + consumer);
        ps.setObject(2, e.eventId());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Versions {@code from} .. of each aggregate, interleaved as a broker would deliver them. */
  private static List<TestMessage> batch(String prefix, long from) {
    List<TestMessage> messages = new ArrayList<>();
    for (long v = from; v < from + MESSAGES / AGGREGATES; v++) {
      for (int a = 0; a < AGGREGATES; a++) {
        messages.add(TestMessage.of(event(prefix + a, v)));
      }
    }
    return messages;
  }

  /** Processes the batch counting what it sends; returns Tandem's own round trips. */
  private int count(String what, InboxProcessor p, List<TestMessage> batch) throws SQLException {
    counting.reset();
    assertThat(p.process(batch)).containsOnly(Outcome.APPLIED);
    List<String> calls = counting.calls();
    List<String> own = calls.stream().filter(c -> !c.contains("invoices")).toList();
    StringBuilder report =
        new StringBuilder(
            String.format(
                "[statements] %s, %s: %d messages over %d aggregates: %d round trips of Tandem's"
                    + " own (%d with the handler's)%n",
                getClass().getSimpleName(),
                what,
                batch.size(),
                AGGREGATES,
                own.size(),
                calls.size()));
    own.stream()
        .distinct()
        .forEach(
            c ->
                report.append(
                    String.format(
                        "[statements]   %3d x %s%n",
                        own.stream().filter(c::equals).count(),
                        c.length() > 100 ? c.substring(0, 100) + "…" : c)));
    System.out.print(report);
    return own.size();
  }

  @Test
  void aBatchOfKnownAggregatesWithAPerEventHandler() throws SQLException {
    InboxProcessor p = build(false);
    p.process(batch("k", 1));

    int roundTrips = count("per-event handler, known aggregates", p, batch("k", 9));

    assertThat(invoices()).hasSize(2 * MESSAGES);
    assertThat(roundTrips).isLessThanOrEqualTo(steadyBound());
  }

  @Test
  void aBatchOfKnownAggregatesWithABatchHandler() throws SQLException {
    InboxProcessor p = build(true);
    p.process(batch("k", 1));

    int roundTrips = count("batch handler, known aggregates", p, batch("k", 9));

    assertThat(invoices()).hasSize(2 * MESSAGES);
    assertThat(roundTrips).isLessThanOrEqualTo(steadyBound());
  }

  @Test
  void aBatchOfNewAggregates() throws SQLException {
    InboxProcessor p = build(false);

    int roundTrips = count("per-event handler, new aggregates", p, batch("n", 1));

    assertThat(invoices()).hasSize(MESSAGES);
    assertThat(roundTrips).isLessThanOrEqualTo(newAggregatesBound());
  }
}
