package io.tandem.kafka.internal;

import io.tandem.core.RetryPolicy;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll thread of a {@code KafkaMessageSource}. It alone touches the Kafka consumer (which is
 * not thread-safe): it polls, queues the records on the {@link HandOver}, pauses every assigned
 * partition while the hand-over is full or has ended (and keeps polling, so that a sink blocked for
 * long does not exceed {@code max.poll.interval.ms}), commits the acknowledged prefix of each
 * partition every {@link #COMMIT_INTERVAL}, on revocation and on close. Only {@link #stop()} and
 * the read-only accessors are called from other threads.
 */
public final class SourceLoop implements Runnable {
  /** The most time between two commits of newly acknowledged offsets. */
  public static final Duration COMMIT_INTERVAL = Duration.ofMillis(250);

  /** The poll timeout while paused, so that fetching resumes soon after the hand-over drains. */
  private static final Duration PAUSED_POLL_TIMEOUT = Duration.ofMillis(20);

  private static final Logger LOG = LoggerFactory.getLogger("io.tandem.kafka.KafkaMessageSource");

  /**
   * How the loop runs; values already validated.
   *
   * @param bufferLimit fetching pauses while this many records wait for hand-over
   */
  public record Settings(
      String groupId,
      List<String> topics,
      Duration pollTimeout,
      Duration rebalanceTimeout,
      int bufferLimit) {}

  private final Consumer<String, byte[]> consumer;
  private final HandOver handOver;
  private final Settings settings;
  private final Set<TopicPartition> assignment = ConcurrentHashMap.newKeySet();
  private final AtomicLong fetched = new AtomicLong();
  private final AtomicLong lag = new AtomicLong(-1);
  private final Object backoff = new Object();
  private volatile boolean stopping;
  private volatile boolean running = true;
  private boolean interrupted;
  private long lastCommit = System.nanoTime();

  public SourceLoop(Consumer<String, byte[]> consumer, HandOver handOver, Settings settings) {
    this.consumer = consumer;
    this.handOver = handOver;
    this.settings = settings;
  }

  /** Subscribes; called once, before the loop runs, on the thread that starts it. */
  public void subscribe() {
    consumer.subscribe(settings.topics(), new Rebalance());
  }

  /** Asks the loop to commit what was acknowledged and close the consumer. Any thread. */
  public void stop() {
    stopping = true;
    synchronized (backoff) {
      backoff.notifyAll();
    }
    consumer.wakeup();
  }

  /** False once the loop has ended and released the Kafka consumer. */
  public boolean running() {
    return running;
  }

  /** The partitions currently assigned (a snapshot). */
  public Set<TopicPartition> assignment() {
    return Set.copyOf(assignment);
  }

  /**
   * Records of the assigned partitions not processed yet, as of the last poll: those the broker
   * holds beyond this consumer's position (Kafka's records-lag, from the fetch responses, no extra
   * request) plus those fetched and not acknowledged; -1 before the broker told any.
   */
  public long lag() {
    return lag.get();
  }

  /** Records fetched so far, handed over or not. */
  public long fetched() {
    return fetched.get();
  }

  @Override
  public void run() {
    try {
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
              "consumer group {}: poll failed ({}, {} in a row); retrying after a backoff",
              settings.groupId(),
              KafkaErrors.classify(e),
              consecutiveErrors,
              e);
          pause(RetryPolicy.DEFAULTS.delayAfter(consecutiveErrors));
        }
      }
      handOver.close();
      commit(null, "on close");
    } finally {
      handOver.close();
      closeClient();
      running = false;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void pollOnce() {
    boolean paused = applyPause();
    Duration timeout =
        paused && !handOver.handOverEnded()
            ? min(PAUSED_POLL_TIMEOUT, settings.pollTimeout())
            : settings.pollTimeout();
    ConsumerRecords<String, byte[]> records = consumer.poll(timeout);
    fetched.addAndGet(records.count());
    handOver.add(records);
    noteLag();
    if (System.nanoTime() - lastCommit >= COMMIT_INTERVAL.toNanos()) {
      commit(null, "");
    }
  }

  /**
   * On the poll thread, which owns the consumer: {@code currentLag} reads what the fetches said.
   */
  private void noteLag() {
    long behind = 0;
    boolean known = false;
    for (TopicPartition partition : consumer.assignment()) {
      OptionalLong partitionLag = consumer.currentLag(partition);
      if (partitionLag.isPresent()) {
        behind += partitionLag.getAsLong();
        known = true;
      }
    }
    if (known) {
      lag.set(behind + handOver.unacknowledged());
    }
  }

  /** Pauses every assigned partition while the hand-over is full or ended; else resumes them. */
  private boolean applyPause() {
    boolean pause = handOver.handOverEnded() || handOver.buffered() >= settings.bufferLimit();
    if (pause) {
      Set<TopicPartition> active = new HashSet<>(consumer.assignment());
      active.removeAll(consumer.paused());
      if (!active.isEmpty()) {
        consumer.pause(active);
      }
    } else {
      Set<TopicPartition> paused = consumer.paused();
      if (!paused.isEmpty()) {
        consumer.resume(paused);
      }
    }
    return pause;
  }

  /** Commits the acknowledged prefix of {@code only} these partitions, or of all when null. */
  private void commit(Collection<TopicPartition> only, String when) {
    HandOver.Commit commit = handOver.committable(only);
    lastCommit = System.nanoTime();
    if (commit.isEmpty()) {
      return;
    }
    try {
      OffsetCommits.commitSync(consumer, commit.offsets());
      handOver.committed(commit);
    } catch (CommitFailedException | RebalanceInProgressException e) {
      LOG.warn(
          "consumer group {}: could not commit {}{} because the group is rebalancing; "
              + "they are committed on revocation or delivered again",
          settings.groupId(),
          commit.offsets(),
          when,
          e);
    } catch (InterruptException e) {
      onInterrupt();
      LOG.warn(
          "consumer group {}: interrupted while committing {}{}",
          settings.groupId(),
          commit.offsets(),
          when);
    } catch (KafkaException e) {
      LOG.warn(
          "consumer group {}: commit of {}{} failed ({}); retrying with the next commit",
          settings.groupId(),
          commit.offsets(),
          when,
          KafkaErrors.classify(e),
          e);
    }
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
    } catch (InterruptException e) {
      onInterrupt();
      LOG.warn("consumer group {}: interrupted while closing the Kafka consumer", groupId());
    } catch (RuntimeException e) {
      LOG.warn("consumer group {}: closing the Kafka consumer failed", groupId(), e);
    }
  }

  private String groupId() {
    return settings.groupId();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * Runs inside {@code poll} (and {@code close}). A revoked partition's fetched records are
   * withdrawn, the ones handed over get up to the rebalance timeout to be acknowledged, then the
   * acknowledged prefix is committed and the partition forgotten.
   */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (partitions.isEmpty()) {
        return;
      }
      assignment.removeAll(partitions);
      handOver.withdraw(partitions);
      try {
        int unacknowledged = handOver.awaitAcknowledged(partitions, settings.rebalanceTimeout());
        if (unacknowledged > 0) {
          LOG.warn(
              "consumer group {}: {} revoked with {} records handed over and not acknowledged {}; "
                  + "they will be delivered again",
              groupId(),
              partitions,
              unacknowledged,
              handOver.closing() ? "at close" : "within " + settings.rebalanceTimeout());
        }
      } catch (InterruptedException e) {
        onInterrupt();
      }
      try {
        commit(partitions, " on revocation");
      } catch (RuntimeException e) {
        LOG.warn("consumer group {}: commit on revocation of {} failed", groupId(), partitions, e);
      } finally {
        handOver.forget(partitions);
      }
      LOG.info("consumer group {}: revoked {}", groupId(), partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      assignment.removeAll(partitions);
      handOver.withdraw(partitions);
      handOver.forget(partitions);
      if (!partitions.isEmpty()) {
        LOG.warn(
            "consumer group {}: lost {} (left the group); records not committed will be "
                + "delivered again",
            groupId(),
            partitions);
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      handOver.assigned(partitions);
      assignment.addAll(partitions);
      if (!partitions.isEmpty()) {
        LOG.info("consumer group {}: assigned {}", groupId(), partitions);
      }
    }
  }
}
