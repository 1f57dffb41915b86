package io.tandem.bench;

import io.tandem.core.spi.MessageSource;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.testkit.PostgresServer;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What every run of the consumer benchmark shares: the database server, the broker and its client
 * settings, the run's id (in topic and group names), and where progress lines go (or null).
 */
record ConsumerSetup(
    PostgresServer postgres,
    String bootstrap,
    Map<String, String> kafkaClient,
    String run,
    PrintStream progress) {

  /** A Kafka source on {@code topic} with a consumer group of its own. */
  MessageSource source(String topic, String kind) {
    return KafkaMessageSource.builder()
        .bootstrapServers(bootstrap)
        .clientProperties(kafkaClient)
        .groupId("bench-" + run + "-" + kind + "-" + System.nanoTime())
        .topics(List.of(topic))
        .consumerProperty("max.poll.records", "1000")
        .build();
  }

  /**
   * Waits until {@code done} reaches {@code count}; returns count / seconds since {@code start}.
   */
  static double awaitCount(LongSupplier done, long count, long start) throws InterruptedException {
    long deadline = start + TimeUnit.MINUTES.toNanos(30);
    while (done.getAsLong() < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "consumed " + done.getAsLong() + " of " + count + " in 30 min");
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    return count / ((System.nanoTime() - start) / 1e9);
  }

  void say(String format, Object... args) {
    if (progress != null) {
      progress.println("[bench] " + String.format(Locale.ROOT, format, args));
      progress.flush();
    }
  }
}
