package io.tandem.kafka.internal;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.kafka.CloudEventsKafkaCodec;
import io.tandem.kafka.TopicRouter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Publishes one batch: every record is handed to the producer first, then the batch waits once for
 * all acknowledgements. An event is acknowledged only when its send completed without error.
 */
public final class BatchPublisher {
  private final ProducerSlot producers;
  private final TopicRouter router;
  private final CloudEventsKafkaCodec codec;

  public BatchPublisher(ProducerSlot producers, TopicRouter router, CloudEventsKafkaCodec codec) {
    this.producers = producers;
    this.router = router;
    this.codec = codec;
  }

  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    ProducerSlot.Lease lease;
    try {
      lease = producers.acquire();
    } catch (KafkaException e) {
      return failAll(events, ErrorClass.BROKER_UNAVAILABLE, "cannot create the Kafka producer", e);
    }
    PendingSends sends = new PendingSends(events.size());
    String[] topics = new String[events.size()];
    boolean interrupted = false;
    // A topic whose metadata did not arrive within max.block.ms would block every further send.
    Map<String, Throwable> unreachable = new HashMap<>();
    for (int i = 0; i < events.size(); i++) {
      if (Thread.currentThread().isInterrupted()) {
        interrupted = true;
        break;
      }
      if (System.nanoTime() - deadline >= 0) {
        break; // the rest stays incomplete and is reported as TIMEOUT
      }
      Event event = events.get(i);
      try {
        topics[i] = TopicNames.validate("topic", router.topicFor(event));
      } catch (RuntimeException e) {
        sends.fail(
            i, failure(event, null, ErrorClass.UNROUTABLE, "no topic: " + e.getMessage(), e));
        continue;
      }
      ProducerRecord<String, byte[]> record;
      try {
        record = codec.encode(topics[i], event);
      } catch (RuntimeException e) {
        sends.fail(i, failure(event, topics[i], ErrorClass.SERIALIZATION, e.getMessage(), e));
        continue;
      }
      Throwable blocked = unreachable.get(topics[i]);
      if (blocked != null) {
        sends.fail(i, blocked);
        continue;
      }
      try {
        lease.producer().send(record, sends.callback(i));
      } catch (InterruptException e) {
        interrupted = true; // Kafka has already restored the interrupt flag
        break;
      } catch (RuntimeException e) {
        sends.fail(i, e);
      }
      if (sends.failure(i) instanceof TimeoutException metadataTimeout) {
        unreachable.put(topics[i], metadataTimeout);
      }
    }
    try {
      sends.await(deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      interrupted = true;
    }
    return outcomes(events, topics, sends, lease, timeout, interrupted);
  }

  private List<PublishOutcome> outcomes(
      List<Event> events,
      String[] topics,
      PendingSends sends,
      ProducerSlot.Lease lease,
      Duration timeout,
      boolean interrupted) {
    for (int i = 0; i < events.size(); i++) {
      Throwable failure = sends.failure(i);
      if (failure != null && KafkaErrors.isFatalProducerState(failure)) {
        producers.retire(lease, failure);
        break;
      }
    }
    List<PublishOutcome> outcomes = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      Event event = events.get(i);
      if (sends.acknowledged(i)) {
        outcomes.add(PublishOutcome.acknowledged(event.eventId()));
      } else if (!sends.completed(i)) {
        String why =
            interrupted ? "interrupted while publishing" : "not acknowledged within " + timeout;
        outcomes.add(failed(event, topics[i], ErrorClass.TIMEOUT, why, null));
      } else if (sends.failure(i) instanceof PublishException classified) {
        outcomes.add(PublishOutcome.failed(event.eventId(), classified));
      } else {
        Throwable failure = sends.failure(i);
        ErrorClass errorClass = KafkaErrors.classify(failure);
        if (errorClass == ErrorClass.UNKNOWN && lease.retired()) {
          errorClass = ErrorClass.TRANSIENT; // aborted because its producer was replaced
        }
        outcomes.add(failed(event, topics[i], errorClass, failure.toString(), failure));
      }
    }
    return outcomes;
  }

  private static PublishOutcome failed(
      Event event, String topic, ErrorClass errorClass, String why, Throwable cause) {
    return PublishOutcome.failed(event.eventId(), failure(event, topic, errorClass, why, cause));
  }

  private static PublishException failure(
      Event event, String topic, ErrorClass errorClass, String why, Throwable cause) {
    String where = topic == null ? null : "topic " + topic;
    return PublishException.forEvent("kafka", errorClass, event.eventId(), where, why, cause);
  }

  private static List<PublishOutcome> failAll(
      List<Event> events, ErrorClass errorClass, String why, Throwable cause) {
    List<PublishOutcome> outcomes = new ArrayList<>(events.size());
    for (Event event : events) {
      outcomes.add(
          PublishOutcome.failed(
              event.eventId(),
              new PublishException(errorClass, "kafka: " + why + ": " + cause, cause)));
    }
    return outcomes;
  }
}
