package io.tandem.examples.choreography;

import io.tandem.core.TandemException;
import io.tandem.examples.choreography.ChoreographedCheckout.Redelivery;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Delivers every message of the choreography's topics again, service by service, to a second
 * consumer with the same inbox under a new consumer group (as after an offset reset or a replay
 * from the broker), and counts what the inboxes made of them.
 */
final class ChoreographyRedelivery {
  private final String bootstrapServers;
  private final Map<String, String> kafkaClient;
  private final String prefix;
  private final int concurrency;

  ChoreographyRedelivery(
      String bootstrapServers, Map<String, String> kafkaClient, String prefix, int concurrency) {
    this.bootstrapServers = bootstrapServers;
    this.kafkaClient = kafkaClient;
    this.prefix = prefix;
    this.concurrency = concurrency;
  }

  /**
   * Round {@code round} of redelivery to {@code nodes}, each through a new processor of its service
   * from {@code processors}.
   *
   * @throws TandemException when a service does not handle every record within {@code timeout}
   */
  Redelivery run(
      List<ServiceNode> nodes,
      Function<String, InboxProcessor> processors,
      int round,
      Duration timeout) {
    long delivered = 0;
    long duplicates = 0;
    long applied = 0;
    long deadline = System.nanoTime() + timeout.toNanos();
    for (ServiceNode node : nodes) {
      long records = ChoreographyTopics.recordCount(bootstrapServers, kafkaClient, node.topics());
      InboxProcessor processor = processors.apply(node.service());
      try (ConsumerRunner runner =
          ServiceNode.runner(
              processor,
              node.topics(),
              bootstrapServers,
              kafkaClient,
              prefix + node.service() + "-redelivery-" + round,
              concurrency)) {
        runner.start();
        while (handled(processor) < records) {
          if (System.nanoTime() > deadline) {
            throw new TandemException(
                "redelivery to "
                    + node.service()
                    + " handled "
                    + handled(processor)
                    + " of "
                    + records
                    + " records within "
                    + timeout);
          }
          sleep(Duration.ofMillis(50));
        }
      }
      delivered += handled(processor);
      duplicates += processor.duplicateCount();
      applied += processor.appliedCount();
    }
    return new Redelivery(delivered, duplicates, applied);
  }

  private static long handled(InboxProcessor p) {
    return p.appliedCount()
        + p.duplicateCount()
        + p.skippedCount()
        + p.parkedCount()
        + p.deadLetteredCount();
  }

  private static void sleep(Duration d) {
    try {
      TimeUnit.MILLISECONDS.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TandemException("interrupted", e);
    }
  }
}
