package io.tandem.examples.outbox;

import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Dialect;
import io.tandem.kafka.KafkaClientProperties;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.KafkaBroker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The outbox demo's waits, each bounded by the run's timeout: for the consumer's partitions, a
 * relay's crash, the relays' balance, the crash batch's second copies, every event's delivery and
 * the topic's drain. The outbox is read through {@link OutboxOperations}.
 */
final class DeliveryWatch {
  private final Duration timeout;
  private final OutboxOperations outbox;
  private final InboxProcessor billing;
  private final OutboxDemo.Say say;

  DeliveryWatch(
      Duration timeout, OutboxOperations outbox, InboxProcessor billing, OutboxDemo.Say say) {
    this.timeout = timeout;
    this.outbox = outbox;
    this.billing = billing;
    this.say = say;
  }

  void awaitAssignment(KafkaMessageSource source) throws InterruptedException {
    long deadline = deadline();
    while (source.assignment().isEmpty() && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  void awaitCrash(OutboxRelay relay) throws InterruptedException {
    long deadline = deadline();
    while (!relay.hasCrashed() && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /** Waits until every relay holds its fair share of the partitions. */
  void awaitBalanced(List<OutboxRelay> relays) throws InterruptedException {
    long deadline = deadline();
    while (System.nanoTime() < deadline
        && (relays.stream().anyMatch(r -> r.status().ownedPartitions().isEmpty())
            || relays.stream().mapToInt(r -> r.status().ownedPartitions().size()).sum()
                < Dialect.PARTITIONS)) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /**
   * Waits until the crash batch is marked published (by a healthy relay: the killed one marked
   * nothing) and its second copies reached billing, where the inbox counted each as a duplicate.
   */
  void awaitRepublished(int batch) throws InterruptedException {
    long deadline = deadline();
    while (System.nanoTime() < deadline
        && (billing.duplicateCount() < batch || outbox.status().published() < batch)) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  /** Waits until {@code total} events are published and applied, printing progress each second. */
  void awaitDelivery(long total, LongSupplier committed, LongSupplier crashes)
      throws InterruptedException {
    long deadline = deadline();
    long lastPrint = 0;
    while (System.nanoTime() < deadline) {
      long published = outbox.status().published();
      long delivered = billing.appliedCount();
      if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(1)) {
        lastPrint = System.nanoTime();
        say.say(
            "committed %d/%d  published %d  delivered %d  duplicates delivered %d  relay crashes %d",
            committed.getAsLong(),
            total,
            published,
            delivered,
            billing.duplicateCount(),
            crashes.getAsLong());
      }
      if (published == total && delivered == total) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
    say.say("timed out after %s waiting for every event to reach billing", timeout);
  }

  /** Waits until the consumer handled every record on the topic, duplicates included. */
  void awaitDrained(KafkaBroker kafka, String topic) throws Exception {
    Properties p = new Properties();
    p.putAll(KafkaClientProperties.admin(kafka.clientProperties()));
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    long records;
    try (Admin admin = Admin.create(p)) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (var partition :
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
        latest.put(new TopicPartition(topic, partition.partition()), OffsetSpec.latest());
      }
      records =
          admin.listOffsets(latest).all().get().values().stream()
              .mapToLong(ListOffsetsResultInfo::offset)
              .sum();
    }
    long deadline = deadline();
    while (billing.appliedCount() + billing.duplicateCount() < records
        && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private long deadline() {
    return System.nanoTime() + timeout.toNanos();
  }
}
