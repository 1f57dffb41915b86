package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.kafka.KafkaMessageSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The pipeline benchmark's consumer: the batched inbox ({@link InboxProcessor} on a {@link
 * ConsumerRunner} with {@value #LANES} lanes, up to {@value #BATCH} messages per transaction) with
 * a batch handler writing one invoice row per {@code OrderPlaced} event into the billing database,
 * noting when each event's effect committed.
 */
final class PipelineBilling implements AutoCloseable {
  static final int LANES = 8;
  static final int BATCH = 500;
  static final String TABLE =
      "CREATE TABLE bench_invoice (id bigserial PRIMARY KEY, order_id text NOT NULL,"
          + " total_cents bigint NOT NULL)";
  private static final String INSERT =
      "INSERT INTO bench_invoice (order_id, total_cents) VALUES (?, ?)";
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

  private final BenchDatabase billing;
  private final InboxProcessor processor;
  private final ConsumerRunner runner;

  /**
   * {@code applied} receives each applied event's id and {@link System#nanoTime()} after commit.
   */
  PipelineBilling(
      BenchDatabase billing,
      String bootstrap,
      Map<String, String> kafkaClient,
      String group,
      String topic,
      Map<UUID, Long> applied) {
    this.billing = billing;
    this.processor =
        InboxProcessor.builder()
            .dataSource(billing.pool)
            .consumer("billing")
            .onBatch("OrderPlaced", PipelineBilling::invoices)
            // After each message's commit (once per message, also in a batch).
            .afterCommit(
                (e, outcome) -> {
                  if (outcome == Outcome.APPLIED) {
                    applied.put(e.eventId(), System.nanoTime());
                  }
                })
            .build();
    this.runner =
        ConsumerRunner.builder()
            .source(
                KafkaMessageSource.builder()
                    .bootstrapServers(bootstrap)
                    .clientProperties(kafkaClient)
                    .groupId(group)
                    .topics(List.of(topic))
                    .consumerProperty("max.poll.records", "1000")
                    .build())
            .processor(processor)
            .concurrency(LANES)
            .maxBatch(BATCH)
            .maxInFlight(4 * BATCH)
            .build();
  }

  void start() {
    runner.start();
  }

  long applied() {
    return processor.appliedCount();
  }

  private static void invoices(Connection c, List<Event> events) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      for (Event e : events) {
        ps.setString(1, e.aggregateId());
        ps.setLong(2, e.payload().length());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Waits until the consumer applied {@code total} events. */
  void awaitApplied(long total) throws InterruptedException {
    long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
    while (processor.appliedCount() < total) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the consumer applied "
                + processor.appliedCount()
                + " of "
                + total
                + " events within "
                + DRAIN_TIMEOUT.toMinutes()
                + " min");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /** Every committed order has exactly one invoice, and the inbox saw no duplicate effect. */
  void checkOnce(long total) throws SQLException {
    long invoices = billing.count("SELECT count(*) FROM bench_invoice");
    long orders = billing.count("SELECT count(DISTINCT order_id) FROM bench_invoice");
    if (invoices != total || orders != total || processor.appliedCount() != total) {
      throw new IllegalStateException(
          "committed "
              + total
              + " orders but billing holds "
              + invoices
              + " invoices for "
              + orders
              + " orders ("
              + processor.appliedCount()
              + " applied)");
    }
  }

  @Override
  public void close() {
    runner.close();
  }
}
