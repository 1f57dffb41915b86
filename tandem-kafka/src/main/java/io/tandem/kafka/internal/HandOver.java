package io.tandem.kafka.internal;

import io.tandem.kafka.CloudEventsKafkaCodec;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What a {@code KafkaMessageSource}'s threads share: the records the poll thread fetched and the
 * hand-over thread has not handed over yet, and the {@link PartitionOffsets} of every assigned
 * partition. One lock guards it all; nobody holds it across a call to Kafka or to the sink.
 *
 * <p>The poll thread adds records, withdraws those of revoked partitions (so they are never handed
 * over afterwards), waits for acknowledgements on revocation and commits; the hand-over thread
 * takes records one at a time, registering each as handed over in the same step; acknowledgements
 * come from any thread.
 */
public final class HandOver {
  /** Offsets to commit, and the trackers they were read from. */
  public record Commit(Map<TopicPartition, OffsetAndMetadata> offsets, List<PartitionOffsets> of) {
    public boolean isEmpty() {
      return offsets.isEmpty();
    }
  }

  private final CloudEventsKafkaCodec codec = CloudEventsKafkaCodec.create();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition fetched = lock.newCondition();
  private final Condition settled = lock.newCondition();
  private final ArrayDeque<ConsumerRecord<String, byte[]>> buffer = new ArrayDeque<>();
  private final Map<TopicPartition, PartitionOffsets> partitions = new HashMap<>();
  private boolean handOverEnded;
  private boolean closing;

  // ---- poll thread

  /** Starts tracking newly assigned partitions. */
  public void assigned(Collection<TopicPartition> assigned) {
    lock.lock();
    try {
      for (TopicPartition partition : assigned) {
        PartitionOffsets current = partitions.get(partition);
        if (current == null || current.isClosed()) {
          partitions.put(partition, new PartitionOffsets(partition));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Queues the records of a poll for hand-over, in order. */
  public void add(ConsumerRecords<String, byte[]> records) {
    if (records.isEmpty()) {
      return;
    }
    lock.lock();
    try {
      for (ConsumerRecord<String, byte[]> record : records) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        partitions.computeIfAbsent(partition, PartitionOffsets::new);
        buffer.addLast(record);
      }
      fetched.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Records fetched and not handed over yet. */
  public int buffered() {
    lock.lock();
    try {
      return buffer.size();
    } finally {
      lock.unlock();
    }
  }

  /** Drops the fetched records of {@code revoked} that were not handed over: they never will be. */
  public void withdraw(Collection<TopicPartition> revoked) {
    Set<TopicPartition> gone = new HashSet<>(revoked);
    lock.lock();
    try {
      buffer.removeIf(r -> gone.contains(new TopicPartition(r.topic(), r.partition())));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until every record handed over from {@code revoked} is acknowledged, at most {@code
   * timeout}, and not at all once {@link #close()} was called.
   *
   * @return the number of records still unacknowledged (0 when all were)
   * @throws InterruptedException if the poll thread is interrupted while waiting
   */
  public int awaitAcknowledged(Collection<TopicPartition> revoked, Duration timeout)
      throws InterruptedException {
    long left = timeout.toNanos();
    lock.lock();
    try {
      while (true) {
        int unacknowledged = unacknowledged(revoked);
        if (unacknowledged == 0 || closing || left <= 0) {
          return unacknowledged;
        }
        left = settled.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Records handed over or buffered and not acknowledged yet, on every partition. */
  public int unacknowledged() {
    lock.lock();
    try {
      return unacknowledged(partitions.keySet());
    } finally {
      lock.unlock();
    }
  }

  private int unacknowledged(Collection<TopicPartition> of) {
    int count = 0;
    for (TopicPartition partition : of) {
      PartitionOffsets offsets = partitions.get(partition);
      if (offsets != null) {
        count += offsets.unacknowledged();
      }
    }
    return count;
  }

  /** What can be committed, for {@code only} these partitions or, when null, for all. */
  public Commit committable(Collection<TopicPartition> only) {
    lock.lock();
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      List<PartitionOffsets> of = new ArrayList<>();
      Collection<TopicPartition> which = only == null ? partitions.keySet() : only;
      for (TopicPartition partition : which) {
        PartitionOffsets tracker = partitions.get(partition);
        OffsetAndMetadata offset = tracker == null ? null : tracker.toCommit();
        if (offset != null) {
          offsets.put(partition, offset);
          of.add(tracker);
        }
      }
      return new Commit(offsets, of);
    } finally {
      lock.unlock();
    }
  }

  /** Records that {@code commit} succeeded. */
  public void committed(Commit commit) {
    lock.lock();
    try {
      for (PartitionOffsets tracker : commit.of()) {
        tracker.committed(commit.offsets().get(tracker.partition()).offset());
      }
    } finally {
      lock.unlock();
    }
  }

  /** Forgets {@code partitions}: later acknowledgements of their records are ignored. */
  public void forget(Collection<TopicPartition> gone) {
    lock.lock();
    try {
      for (TopicPartition partition : gone) {
        PartitionOffsets offsets = partitions.remove(partition);
        if (offsets != null) {
          offsets.close();
        }
      }
      settled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  // ---- hand-over thread

  /**
   * The next record to hand over, already registered as handed over; waits for one.
   *
   * @return null once the hand-over ended or the source closes
   * @throws InterruptedException if the hand-over thread is interrupted while waiting
   */
  public RecordMessage next() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        while (buffer.isEmpty() && !handOverEnded) {
          fetched.await();
        }
        if (handOverEnded) {
          return null;
        }
        ConsumerRecord<String, byte[]> record = buffer.removeFirst();
        PartitionOffsets offsets =
            partitions.get(new TopicPartition(record.topic(), record.partition()));
        if (offsets != null) { // else the partition left: withdrawn records are not handed over
          offsets.handOver(record.offset(), record.leaderEpoch());
          return new RecordMessage(record, codec, this, offsets);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@code message}'s partition is still assigned to the source that handed it over. */
  public boolean stillAssigned(RecordMessage message) {
    lock.lock();
    try {
      return !message.offsets().isClosed() && !closing;
    } finally {
      lock.unlock();
    }
  }

  /** Nothing more is handed over: the sink refused a record, or the hand-over thread ended. */
  public void endHandOver() {
    lock.lock();
    try {
      handOverEnded = true;
      fetched.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public boolean handOverEnded() {
    lock.lock();
    try {
      return handOverEnded;
    } finally {
      lock.unlock();
    }
  }

  // ---- any thread

  void acknowledge(PartitionOffsets offsets, long offset) {
    lock.lock();
    try {
      offsets.acknowledge(offset);
      settled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The source closes: the hand-over ends and revocations stop waiting for acknowledgements. */
  public void close() {
    lock.lock();
    try {
      closing = true;
      handOverEnded = true;
      fetched.signalAll();
      settled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public boolean closing() {
    lock.lock();
    try {
      return closing;
    } finally {
      lock.unlock();
    }
  }
}
