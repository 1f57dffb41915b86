package io.tandem.bench;

import io.tandem.core.Event;
import io.tandem.core.spi.InboundMessage;
import io.tandem.core.spi.MessageSource;
import io.tandem.jdbc.Transactions;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The consumer benchmark's two bare handlers (no ordering guard, no inbox record, no dedup), each
 * on a fresh database with its own consumer group: one transaction per event, and one commit per
 * batch of what has arrived.
 */
final class ConsumerBareRuns {
  private final ConsumerSetup setup;

  ConsumerBareRuns(ConsumerSetup setup) {
    this.setup = setup;
  }

  /** The bare consumer: one transaction per event on the source's thread, then the ack. */
  double bare(String topic, int count) throws Exception {
    try (BenchDatabase db = new BenchDatabase(setup.postgres(), "bench_bare", 2)) {
      db.execute(ConsumerEffects.TABLE);
      AtomicLong done = new AtomicLong();
      DataSource ds = db.pool;
      MessageSource source = setup.source(topic, "bare");
      long start = System.nanoTime();
      source.start(
          (InboundMessage m) -> {
            Event e = m.decode();
            try {
              Transactions.inTransaction(
                  ds,
                  c -> {
                    ConsumerEffects.one(c, e);
                    return null;
                  });
            } catch (SQLException failure) {
              throw new IllegalStateException("the bare handler failed", failure);
            }
            m.acknowledge();
            done.incrementAndGet();
            return true;
          });
      double rate = ConsumerSetup.awaitCount(done::get, count, start);
      source.close();
      setup.say("bare handler: %.0f events/s", rate);
      return rate;
    }
  }

  /**
   * The bare handler writing batch-wise: the source's thread queues each message; one writer thread
   * takes what has arrived (up to {@code batch}), inserts the rows in one JDBC batch, commits once,
   * then acknowledges each message of the batch.
   */
  double bareBatched(String topic, int count, int batch) throws Exception {
    try (BenchDatabase db = new BenchDatabase(setup.postgres(), "bench_bare_batched", 2)) {
      db.execute(ConsumerEffects.TABLE);
      AtomicLong done = new AtomicLong();
      BlockingQueue<InboundMessage> arrived = new ArrayBlockingQueue<>(4 * batch);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Exception> failed = new AtomicReference<>();
      StatementTimes trace = StatementTimes.enabled() ? new StatementTimes() : null;
      DataSource ds = trace == null ? db.pool : trace.wrap(db.pool);
      Thread writer =
          new Thread(
              () -> writeBatches(ds, arrived, batch, stop, done, failed),
              "bench-bare-batched-writer");
      MessageSource source = setup.source(topic, "bare-batched");
      long start = System.nanoTime();
      writer.start();
      source.start(
          m -> {
            arrived.put(m);
            return true;
          });
      double rate;
      try {
        rate =
            ConsumerSetup.awaitCount(
                () -> {
                  if (failed.get() != null) {
                    throw new IllegalStateException("the bare batched writer failed", failed.get());
                  }
                  return done.get();
                },
                count,
                start);
      } finally {
        source.close();
        stop.set(true);
        writer.join(10_000);
      }
      setup.say("bare handler, batched: %.0f events/s", rate);
      if (trace != null) {
        setup.say("%s", trace.report("bare handler, batched", count, count / rate * 1e3));
      }
      return rate;
    }
  }

  private static void writeBatches(
      DataSource pool,
      BlockingQueue<InboundMessage> arrived,
      int max,
      AtomicBoolean stop,
      AtomicLong done,
      AtomicReference<Exception> failed) {
    List<InboundMessage> batch = new ArrayList<>(max);
    try {
      while (!stop.get()) {
        InboundMessage first = arrived.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        arrived.drainTo(batch, max - 1);
        List<Event> events = new ArrayList<>(batch.size());
        for (InboundMessage m : batch) {
          events.add(m.decode());
        }
        Transactions.inTransaction(
            pool,
            c -> {
              ConsumerEffects.batch(c, events);
              return null;
            });
        batch.forEach(InboundMessage::acknowledge);
        done.addAndGet(batch.size());
        batch.clear();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      failed.set(e);
    }
  }
}
