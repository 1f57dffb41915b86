package io.tandem.bench;

import io.tandem.core.spi.MessageSource;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.kafka.KafkaTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The consumer benchmark's inbox runs: {@link InboxProcessor} (ordering guard, inbox record) on a
 * {@link ConsumerRunner}, batched (up to {@code batch} of what has arrived, one transaction per
 * batch) with a batch handler writing the rows in one JDBC batch; throughput draining a topic, and
 * latency at a steady offered rate.
 */
final class ConsumerInboxRuns {
  private final ConsumerSetup setup;
  private final int batch;

  ConsumerInboxRuns(ConsumerSetup setup, int batch) {
    this.setup = setup;
    this.batch = batch;
  }

  /** Events/s draining {@code count} events of {@code topic} with {@code lanes} lanes. */
  double throughput(String topic, int lanes, int count) throws Exception {
    try (BenchDatabase db = new BenchDatabase(setup.postgres(), "bench_inbox", lanes + 2)) {
      db.execute(ConsumerEffects.TABLE);
      StatementTimes trace = StatementTimes.enabled() ? new StatementTimes() : null;
      InboxProcessor processor =
          processor(trace == null ? db.pool : trace.wrap(db.pool), null, null).build();
      ConsumerRunner runner = runner(setup.source(topic, "inbox" + lanes), processor, lanes);
      long start = System.nanoTime();
      runner.start();
      double rate =
          ConsumerSetup.awaitCount(
              () -> processor.appliedCount() + processor.duplicateCount(), count, start);
      runner.close();
      setup.say("inbox, %d lane(s): %.0f events/s", lanes, rate);
      if (trace != null) {
        setup.say("%s", trace.report("inbox, " + lanes + " lane(s)", count, count / rate * 1e3));
      }
      if (processor.duplicateCount() > 0 || processor.deadLetteredCount() > 0) {
        setup.say(
            "  (%d duplicates, %d dead letters)",
            processor.duplicateCount(), processor.deadLetteredCount());
      }
      return rate;
    }
  }

  /**
   * p50 and p99 in ms from an event's hand-over to the producer to the consumer's commit of it,
   * with {@code lanes} lanes, at {@code rate} events/s offered on the empty {@code topic}: first
   * {@code warmUp} of the same load, waited for until applied (the group's assignment, the JIT),
   * then {@code window} measured over every event of it.
   *
   * @throws IllegalStateException if an event of the window is not applied within two minutes
   */
  double[] latency(String topic, int lanes, int rate, Duration warmUp, Duration window)
      throws Exception {
    Queue<Double> millis = new ConcurrentLinkedQueue<>();
    try (BenchDatabase db = new BenchDatabase(setup.postgres(), "bench_inbox_steady", lanes + 2);
        KafkaTransport kafka =
            ConsumerEvents.transport(setup.bootstrap(), setup.kafkaClient(), topic)) {
      db.execute(ConsumerEffects.TABLE);
      LatencyBreakdown breakdown = new LatencyBreakdown();
      InboxProcessor processor = processor(db.pool, millis, breakdown).build();
      ConsumerRunner runner =
          runner(breakdown.wrap(setup.source(topic, "steady" + lanes)), processor, lanes);
      runner.start();
      try {
        long next =
            ConsumerEvents.steady(kafka, "st-", 0, rate, warmUp, ConsumerEvents.BACKLOG_TYPE);
        await(processor, next);
        long end =
            ConsumerEvents.steady(
                kafka, "st-", next, rate, window, ConsumerEvents.STEADY_TYPE, breakdown);
        await(processor, end);
        if (millis.size() != end - next) {
          throw new IllegalStateException(
              "measured " + millis.size() + " of the window's " + (end - next) + " events");
        }
        setup.say("  where it went: %s", breakdown.summary());
      } finally {
        runner.close();
      }
    }
    Percentiles p = new Percentiles(millis);
    setup.say(
        "inbox, %d lane(s), %d events/s offered: producer to consumer commit p50 %.1f ms,"
            + " p99 %.1f ms",
        lanes, rate, p.at(0.50), p.at(0.99));
    return new double[] {p.at(0.50), p.at(0.99)};
  }

  /**
   * The processor; with {@code millis}, each applied steady event's latency (wall clock, from its
   * {@code occurredAt}) goes there and its commit to {@code breakdown}.
   */
  private InboxProcessor.Builder processor(
      DataSource ds, Queue<Double> millis, LatencyBreakdown breakdown) {
    InboxProcessor.Builder b =
        InboxProcessor.builder()
            .dataSource(ds)
            .consumer("bench")
            .onBatch(ConsumerEvents.BACKLOG_TYPE, ConsumerEffects::batch)
            .onBatch(ConsumerEvents.STEADY_TYPE, ConsumerEffects::batch);
    if (millis != null) {
      b.afterCommit(
          (e, outcome) -> {
            if (outcome == Outcome.APPLIED && e.eventType().equals(ConsumerEvents.STEADY_TYPE)) {
              millis.add(Duration.between(e.occurredAt(), Instant.now()).toNanos() / 1e6);
              breakdown.committed(e);
            }
          });
    }
    return b;
  }

  private ConsumerRunner runner(MessageSource source, InboxProcessor processor, int lanes) {
    return ConsumerRunner.builder()
        .source(source)
        .processor(processor)
        .concurrency(lanes)
        .maxBatch(batch)
        .maxInFlight(4 * batch)
        .build();
  }

  private static void await(InboxProcessor processor, long applied) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (processor.appliedCount() < applied) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "applied " + processor.appliedCount() + " of " + applied + " events within 2 min");
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }
}
