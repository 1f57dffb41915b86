package io.tandem.kafka.internal;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The offsets of one partition handed over during one assignment, and how far they may be
 * committed: up to, not including, the lowest offset handed over and not acknowledged yet (or past
 * the last one handed over when all are acknowledged). Acknowledgements may come in any order.
 *
 * <p>Not thread-safe: {@link HandOver} guards every instance with its lock. Once {@linkplain
 * #close() closed} (the partition was revoked or lost) acknowledgements are ignored, so that a late
 * one cannot count for a later assignment of the same partition.
 */
public final class PartitionOffsets {
  private record Handed(long offset, Optional<Integer> leaderEpoch) {}

  private final TopicPartition partition;
  private final ArrayDeque<Handed> unsettled = new ArrayDeque<>(); // in offset order
  private final Set<Long> acknowledgedAhead = new HashSet<>();
  private long next = -1; // the offset to commit; -1 while nothing was acknowledged
  private Optional<Integer> nextEpoch = Optional.empty();
  private long committed = -1;
  private boolean closed;

  public PartitionOffsets(TopicPartition partition) {
    this.partition = partition;
  }

  public TopicPartition partition() {
    return partition;
  }

  /** Records that {@code offset}, higher than any handed over before, was handed over. */
  public void handOver(long offset, Optional<Integer> leaderEpoch) {
    Handed last = unsettled.peekLast();
    long floor = last != null ? last.offset() : next - 1;
    if (offset <= floor) {
      throw new IllegalStateException(
          partition + ": offset " + offset + " handed over after offset " + floor);
    }
    unsettled.addLast(new Handed(offset, leaderEpoch));
  }

  /**
   * Marks {@code offset} (handed over, not acknowledged before) as acknowledged.
   *
   * @return whether this closed the gap at the front, so that more can be committed
   */
  public boolean acknowledge(long offset) {
    if (closed || unsettled.isEmpty() || offset < unsettled.peekFirst().offset()) {
      return false;
    }
    if (offset != unsettled.peekFirst().offset()) {
      acknowledgedAhead.add(offset);
      return false;
    }
    Handed done = unsettled.removeFirst();
    while (!unsettled.isEmpty() && acknowledgedAhead.remove(unsettled.peekFirst().offset())) {
      done = unsettled.removeFirst();
    }
    next = unsettled.isEmpty() ? done.offset() + 1 : unsettled.peekFirst().offset();
    nextEpoch = done.leaderEpoch();
    return true;
  }

  /** Offsets handed over and not acknowledged yet. */
  public int unacknowledged() {
    return unsettled.size() - acknowledgedAhead.size();
  }

  /** The offset to commit, when it is beyond the last one committed; else null. */
  public OffsetAndMetadata toCommit() {
    if (closed || next < 0 || next <= committed) {
      return null;
    }
    return new OffsetAndMetadata(next, nextEpoch, "");
  }

  /** Records that {@code offset} was committed. */
  public void committed(long offset) {
    committed = Math.max(committed, offset);
  }

  /** Forgets the partition: nothing more is committed, acknowledgements are ignored. */
  public void close() {
    closed = true;
    unsettled.clear();
    acknowledgedAhead.clear();
  }

  public boolean isClosed() {
    return closed;
  }
}
