package io.tandem.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionOffsetsTest {
  private final PartitionOffsets offsets = new PartitionOffsets(new TopicPartition("t", 0));

  private void handOver(long... handed) {
    for (long offset : handed) {
      offsets.handOver(offset, Optional.of(7));
    }
  }

  private Long next() {
    OffsetAndMetadata commit = offsets.toCommit();
    return commit == null ? null : commit.offset();
  }

  @Test
  void nothingIsCommittedBeforeTheFirstAcknowledgement() {
    handOver(5, 6, 7);
    assertThat(next()).isNull();
    assertThat(offsets.acknowledge(6)).isFalse();
    assertThat(next()).isNull();
    assertThat(offsets.unacknowledged()).isEqualTo(2);
  }

  @Test
  void commitsOnlyTheContiguousAcknowledgedPrefix() {
    handOver(0, 1, 2, 3, 4, 5);
    offsets.acknowledge(1);
    offsets.acknowledge(3);
    assertThat(next()).isNull();
    assertThat(offsets.acknowledge(0)).isTrue();
    assertThat(next()).isEqualTo(2);
    offsets.acknowledge(2);
    assertThat(next()).isEqualTo(4);
    offsets.acknowledge(5);
    assertThat(next()).isEqualTo(4);
    offsets.acknowledge(4);
    assertThat(next()).isEqualTo(6); // all acknowledged: past the last one handed over
    assertThat(offsets.unacknowledged()).isZero();
    assertThat(offsets.toCommit().leaderEpoch()).contains(7);
  }

  @Test
  void gapsInTheOffsetsDoNotHoldTheCommitBack() {
    handOver(10, 13, 20);
    offsets.acknowledge(10);
    assertThat(next()).isEqualTo(13);
    offsets.acknowledge(20);
    offsets.acknowledge(13);
    assertThat(next()).isEqualTo(21);
  }

  @Test
  void aCommittedOffsetIsNotOfferedAgain() {
    handOver(0, 1);
    offsets.acknowledge(0);
    offsets.committed(1);
    assertThat(next()).isNull();
    handOver(2);
    assertThat(next()).isNull();
    offsets.acknowledge(1);
    assertThat(next()).isEqualTo(2);
  }

  @Test
  void aClosedPartitionIgnoresAcknowledgementsAndCommitsNothing() {
    handOver(0, 1);
    offsets.close();
    assertThat(offsets.acknowledge(0)).isFalse();
    assertThat(next()).isNull();
    assertThat(offsets.unacknowledged()).isZero();
    assertThat(offsets.isClosed()).isTrue();
  }

  @Test
  void refusesAnOffsetHandedOverOutOfOrder() {
    handOver(4);
    assertThatThrownBy(() -> handOver(3)).isInstanceOf(IllegalStateException.class);
    offsets.acknowledge(4);
    assertThatThrownBy(() -> handOver(4)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anyAcknowledgementOrderEndsPastTheLastOffsetAndNeverCommitsAnUnacknowledgedOne() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      PartitionOffsets tracker = new PartitionOffsets(new TopicPartition("t", 0));
      List<Long> handed = new ArrayList<>();
      for (long offset = 0; offset < 50; offset += 1 + random.nextInt(3)) {
        tracker.handOver(offset, Optional.empty());
        handed.add(offset);
      }
      List<Long> order = new ArrayList<>(handed);
      Collections.shuffle(order, random);
      List<Long> acknowledged = new ArrayList<>();
      for (long offset : order) {
        tracker.acknowledge(offset);
        acknowledged.add(offset);
        OffsetAndMetadata commit = tracker.toCommit();
        long lowestPending =
            handed.stream()
                .filter(o -> !acknowledged.contains(o))
                .findFirst()
                .orElse(handed.get(handed.size() - 1) + 1);
        if (acknowledged.contains(handed.get(0))) {
          assertThat(commit.offset()).isEqualTo(lowestPending);
        } else {
          assertThat(commit).isNull();
        }
      }
      assertThat(tracker.toCommit().offset()).isEqualTo(handed.get(handed.size() - 1) + 1);
    }
  }
}
