package io.tandem.kafka.internal;

import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.MessageSink;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-over thread of a {@code KafkaMessageSource}: takes the fetched records one at a time, in
 * order, and gives each to the sink, which may block as long as it likes (the poll thread keeps the
 * group membership alive meanwhile). Ends when the sink refuses a record, when its thread is
 * interrupted (by {@code close()}), or when the source closes.
 */
public final class Dispatcher implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger("io.tandem.kafka.KafkaMessageSource");

  private final HandOver handOver;
  private final MessageSink sink;
  private final String groupId;
  private volatile boolean running = true;

  public Dispatcher(HandOver handOver, MessageSink sink, String groupId) {
    this.handOver = handOver;
    this.sink = sink;
    this.groupId = groupId;
  }

  /** False once the hand-over has ended. */
  public boolean running() {
    return running;
  }

  @Override
  public void run() {
    try {
      for (RecordMessage message = handOver.next();
          message != null && handOver(message);
          message = handOver.next()) {
        // handed over; next one
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // close() asked to stop; the message stays unsettled
    } finally {
      handOver.endHandOver();
      running = false;
    }
  }

  /**
   * Gives {@code message} to the sink, again after a backoff if the sink throws.
   *
   * @return false when the sink refused it: receiving stops
   */
  private boolean handOver(RecordMessage message) throws InterruptedException {
    for (int failures = 1; ; failures++) {
      try {
        if (sink.accept(message)) {
          return true;
        }
        LOG.info(
            "consumer group {}: the sink refused {}; receiving stops, it and the records after it "
                + "stay unacknowledged",
            groupId,
            message);
        return false;
      } catch (RuntimeException e) {
        Duration delay = RetryPolicy.DEFAULTS.delayAfter(failures);
        LOG.error(
            "consumer group {}: the sink failed on {} ({} in a row); handing it over again in {}",
            groupId,
            message,
            failures,
            delay,
            e);
        TimeUnit.MILLISECONDS.sleep(delay.toMillis());
        if (!handOver.stillAssigned(message)) {
          return true; // its partition left this source: the new owner receives it
        }
      }
    }
  }
}
