package io.tandem.kafka.internal;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/** Synchronous offset commits as Tandem's consumers make them. */
public final class OffsetCommits {
  /** How long one {@code commitSync} may take. */
  public static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);

  /** How long closing a Kafka consumer may take (leaving the group included). */
  public static final Duration CLIENT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private OffsetCommits() {}

  /**
   * Commits {@code offsets} with {@code commitSync}. A pending {@code wakeup()} (a close request)
   * does not cancel the commit: the wake-up is spent by the first attempt and the commit repeated.
   */
  public static void commitSync(
      Consumer<String, byte[]> consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
    try {
      consumer.commitSync(offsets, COMMIT_TIMEOUT);
    } catch (WakeupException e) {
      consumer.commitSync(offsets, COMMIT_TIMEOUT);
    }
  }
}
