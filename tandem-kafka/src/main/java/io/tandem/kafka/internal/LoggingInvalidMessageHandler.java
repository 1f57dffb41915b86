package io.tandem.kafka.internal;

import io.tandem.core.InvalidMessageException;
import io.tandem.kafka.InvalidMessageHandler;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link InvalidMessageHandler#LOG_AND_SKIP}. */
public final class LoggingInvalidMessageHandler implements InvalidMessageHandler {
  private static final Logger LOG = LoggerFactory.getLogger(InvalidMessageHandler.class);

  @Override
  public void handle(ConsumerRecord<String, byte[]> record, InvalidMessageException error) {
    LOG.error(
        "skipping invalid message: topic {} partition {} offset {} key {}: {}",
        record.topic(),
        record.partition(),
        record.offset(),
        record.key(),
        error.getMessage());
  }

  @Override
  public String toString() {
    return "LOG_AND_SKIP";
  }
}
