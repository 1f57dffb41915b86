package io.tandem.kafka.internal;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.InvalidMessageException;
import io.tandem.core.RetryPolicy;
import io.tandem.kafka.CloudEventsKafkaCodec;
import io.tandem.kafka.EventHandler;
import io.tandem.kafka.InvalidMessageHandler;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll loop of a {@code KafkaEventConsumer}. Runs on one thread and owns the Kafka consumer,
 * which is not thread-safe; only {@link #stop()} and {@link #running()} are called from others.
 *
 * <p>Offsets: after a record's handler returned, its next offset is remembered; remembered offsets
 * are committed after each poll's records, before a backoff, on revocation and on close. A record
 * whose handler threw is never passed: its partition is sought back to it and it is retried.
 */
public final class ConsumerLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger("io.tandem.kafka.KafkaEventConsumer");

  /** What the loop does with the records; all values already validated. */
  public record Settings(
      String groupId,
      List<String> topics,
      EventHandler handler,
      InvalidMessageHandler invalidMessageHandler,
      RetryPolicy retryPolicy,
      Duration pollTimeout,
      FaultInjector faultInjector) {}

  private record FailedRecord(long offset, int attempts) {}

  private final Consumer<String, byte[]> consumer;
  private final Settings settings;
  private final ConsumerCounters counters;
  private final CloudEventsKafkaCodec codec = CloudEventsKafkaCodec.create();
  private final Object backoff = new Object();
  private final Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
  private final Map<TopicPartition, FailedRecord> failures = new HashMap<>();
  private final java.util.Set<TopicPartition> assignment =
      java.util.concurrent.ConcurrentHashMap.newKeySet();
  private volatile boolean stopping;
  private volatile boolean running = true;
  private boolean crashed;
  private boolean interrupted;

  public ConsumerLoop(
      Consumer<String, byte[]> consumer, Settings settings, ConsumerCounters counters) {
    this.consumer = consumer;
    this.settings = settings;
    this.counters = counters;
  }

  /** Asks the loop to finish the current record, commit and close. Any thread. */
  public void stop() {
    stopping = true;
    synchronized (backoff) {
      backoff.notifyAll();
    }
    consumer.wakeup();
  }

  /** False once the loop has ended (closed, crashed or died) and released the Kafka consumer. */
  public boolean running() {
    return running;
  }

  @Override
  public void run() {
    try {
      consumer.subscribe(settings.topics(), new Rebalance());
      int consecutiveErrors = 0;
      while (!stopping) {
        try {
          pollOnce();
          consecutiveErrors = 0;
        } catch (WakeupException e) {
          // stop() woke the poll up; the loop condition ends it
        } catch (InterruptException e) {
          onInterrupt();
        } catch (RuntimeException e) {
          consecutiveErrors++;
          LOG.error(
              "consumer group {}: poll loop failed ({} in a row); retrying after a backoff",
              settings.groupId(),
              consecutiveErrors,
              e);
          pause(settings.retryPolicy().delayAfter(consecutiveErrors));
        }
      }
      commitProcessed();
    } catch (FaultInjector.SimulatedCrash crash) {
      // Sudden death: no commit, no clean-up beyond releasing the client, as a killed process.
      crashed = true;
      processed.clear();
      LOG.warn(
          "consumer group {}: {}; stopped without committing",
          settings.groupId(),
          crash.getMessage());
    } catch (RuntimeException e) {
      LOG.error("consumer group {}: stopped by an unexpected failure", settings.groupId(), e);
    } finally {
      closeClient();
      running = false;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void pollOnce() {
    ConsumerRecords<String, byte[]> records = consumer.poll(settings.pollTimeout());
    int worstFailure = 0;
    try {
      for (TopicPartition partition : records.partitions()) {
        for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
          if (stopping) {
            return; // the caller commits what was processed; the rest is redelivered
          }
          int failedAttempts = process(partition, record);
          if (failedAttempts > 0) {
            consumer.seek(
                partition, new OffsetAndMetadata(record.offset(), record.leaderEpoch(), ""));
            worstFailure = Math.max(worstFailure, failedAttempts);
            break;
          }
        }
      }
    } catch (RuntimeException e) {
      rewind(records);
      throw e;
    }
    commitProcessed();
    if (worstFailure > 0) {
      pause(settings.retryPolicy().delayAfter(worstFailure));
    }
  }

  /** Handles one record; returns 0 when done with it, else its number of failed attempts. */
  private int process(TopicPartition partition, ConsumerRecord<String, byte[]> record) {
    Event event;
    try {
      event = codec.decode(record);
    } catch (InvalidMessageException invalid) {
      try {
        settings.invalidMessageHandler().handle(record, invalid);
      } catch (RuntimeException e) {
        return failed(partition, record, e);
      }
      counters.invalid();
      return done(partition, record);
    } catch (RuntimeException e) {
      return failed(partition, record, e); // a decoding bug must not skip a record
    }
    try {
      settings.handler().handle(event);
    } catch (Exception e) {
      return failed(partition, record, e);
    }
    counters.handled();
    return done(partition, record);
  }

  private int done(TopicPartition partition, ConsumerRecord<String, byte[]> record) {
    settings.faultInjector().reached(FaultInjector.CONSUMER_AFTER_COMMIT);
    processed.put(partition, new OffsetAndMetadata(record.offset() + 1, record.leaderEpoch(), ""));
    failures.remove(partition);
    return 0;
  }

  private int failed(TopicPartition partition, ConsumerRecord<String, byte[]> record, Exception e) {
    FailedRecord previous = failures.get(partition);
    int attempts =
        previous != null && previous.offset() == record.offset() ? previous.attempts() + 1 : 1;
    failures.put(partition, new FailedRecord(record.offset(), attempts));
    counters.failedAttempt();
    if (settings.retryPolicy().mayRetry(attempts)) {
      LOG.warn(
          "consumer group {}: handler failed on {} offset {} (attempt {}); retrying it",
          settings.groupId(),
          partition,
          record.offset(),
          attempts,
          e);
    } else {
      LOG.error(
          "consumer group {}: handler failed on {} offset {} {} times (the retry policy "
              + "allows {}); the partition stays blocked on this record until it succeeds",
          settings.groupId(),
          partition,
          record.offset(),
          attempts,
          settings.retryPolicy().maxAttempts(),
          e);
    }
    return attempts;
  }

  /** After an unexpected failure mid-poll: fetch every unprocessed record of the poll again. */
  private void rewind(ConsumerRecords<String, byte[]> records) {
    for (TopicPartition partition : records.partitions()) {
      long first = records.records(partition).get(0).offset();
      OffsetAndMetadata done = processed.get(partition);
      long next = done == null ? first : Math.max(first, done.offset());
      try {
        consumer.seek(partition, next);
      } catch (RuntimeException e) {
        LOG.warn(
            "consumer group {}: could not seek {} back to {}",
            settings.groupId(),
            partition,
            next,
            e);
      }
    }
  }

  private void commitProcessed() {
    if (processed.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(processed);
    try {
      commit(offsets);
      processed.clear();
    } catch (CommitFailedException | RebalanceInProgressException e) {
      LOG.warn(
          "consumer group {}: could not commit {} because the group rebalanced; those "
              + "records will be delivered again",
          settings.groupId(),
          offsets,
          e);
      processed.clear();
    } catch (InterruptException e) {
      onInterrupt();
      LOG.warn("consumer group {}: interrupted while committing {}", settings.groupId(), offsets);
    } catch (KafkaException e) {
      LOG.warn(
          "consumer group {}: commit of {} failed; retrying with the next commit",
          settings.groupId(),
          offsets,
          e);
    }
  }

  private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    OffsetCommits.commitSync(consumer, offsets);
  }

  private void pause(Duration delay) {
    long deadline = System.nanoTime() + delay.toNanos();
    synchronized (backoff) {
      while (!stopping) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(backoff, left);
        } catch (InterruptedException e) {
          onInterrupt();
          return;
        }
      }
    }
  }

  /** Treats an interrupt as a request to stop; the flag is restored when the loop has ended. */
  private void onInterrupt() {
    Thread.interrupted(); // clear it so that the final commit and close can still run
    interrupted = true;
    stopping = true;
  }

  private void closeClient() {
    try {
      consumer.close(CloseOptions.timeout(OffsetCommits.CLIENT_CLOSE_TIMEOUT));
    } catch (RuntimeException e) {
      LOG.warn("consumer group {}: closing the Kafka consumer failed", settings.groupId(), e);
    }
  }

  /** The partitions currently assigned to this consumer (a snapshot). */
  public java.util.Set<TopicPartition> assignment() {
    return java.util.Set.copyOf(assignment);
  }

  /** Commits what was processed on partitions that leave this consumer; runs inside poll. */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
      assignment.removeAll(partitions);
      for (TopicPartition partition : partitions) {
        OffsetAndMetadata offset = processed.remove(partition);
        if (offset != null) {
          mine.put(partition, offset);
        }
        failures.remove(partition);
      }
      if (!mine.isEmpty() && !crashed) {
        try {
          commit(mine);
        } catch (KafkaException e) {
          LOG.warn(
              "consumer group {}: commit of {} on revocation failed; those records will be "
                  + "delivered again",
              settings.groupId(),
              mine,
              e);
        }
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      assignment.removeAll(partitions);
      for (TopicPartition partition : partitions) {
        processed.remove(partition);
        failures.remove(partition);
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      assignment.addAll(partitions);
      LOG.info("consumer group {}: assigned {}", settings.groupId(), partitions);
    }
  }
}
