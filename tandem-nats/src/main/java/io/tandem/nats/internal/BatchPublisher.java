package io.tandem.nats.internal;

import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.nats.NatsCloudEventsCodec;
import io.tandem.nats.SubjectRouter;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Publishes one batch: every message is handed to {@code publishAsync} first, then the batch waits
 * once for all acks. An event is acknowledged only when its {@code PublishAck} came back without
 * error; a duplicate ack counts, because the stream already stores the event.
 */
public final class BatchPublisher {
  private final NatsConnector connector;
  private final SubjectRouter router;
  private final NatsCloudEventsCodec codec;

  public BatchPublisher(NatsConnector connector, SubjectRouter router, NatsCloudEventsCodec codec) {
    this.connector = connector;
    this.router = router;
    this.codec = codec;
  }

  public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
    long started = System.nanoTime();
    long deadline = started + timeout.toNanos();
    NatsSession session;
    try {
      session = connector.acquire(deadline);
    } catch (IOException e) {
      return failAll(events, NatsErrors.classifyConnect(e), "cannot connect to NATS", e);
    } catch (JetStreamApiException e) {
      return failAll(events, NatsErrors.classify(e), "cannot set up the stream", e);
    } catch (TimeoutException e) {
      return failAll(events, ErrorClass.TIMEOUT, "not connected within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return failAll(events, ErrorClass.TIMEOUT, "interrupted while connecting", e);
    }
    if (!session.connected()) {
      return failAll(
          events,
          ErrorClass.CONNECTION_LOST,
          "the connection is " + session.connection().getStatus(),
          null);
    }
    long disconnectsBefore = session.disconnects();
    long maxPayload = session.connection().getMaxPayload();
    PendingAcks acks = new PendingAcks(events.size());
    String[] subjects = new String[events.size()];
    boolean interrupted = false;
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
        subjects[i] = Subjects.validate("subject", router.subjectFor(event));
      } catch (RuntimeException e) {
        acks.fail(
            i, failure(event, null, ErrorClass.UNROUTABLE, "no subject: " + e.getMessage(), e));
        continue;
      }
      Message message;
      try {
        message = codec.encode(subjects[i], event);
      } catch (RuntimeException e) {
        acks.fail(i, failure(event, subjects[i], ErrorClass.SERIALIZATION, e.getMessage(), e));
        continue;
      }
      long size = message.getData().length + message.getHeaders().serializedLength();
      if (maxPayload > 0 && size > maxPayload) {
        // The server would answer -ERR 'Maximum Payload Violation' and close the connection.
        String why = size + " bytes with headers, over the server's max_payload of " + maxPayload;
        acks.fail(i, failure(event, subjects[i], ErrorClass.RECORD_TOO_LARGE, why, null));
        continue;
      }
      try {
        session.jetStream().publishAsync(message).whenComplete(acks.callback(i));
      } catch (RuntimeException e) {
        acks.fail(i, e);
      }
    }
    try {
      acks.await(deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      interrupted = true;
    }
    boolean lost = session.disconnects() != disconnectsBefore || !session.connected();
    List<PublishOutcome> outcomes = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      Event event = events.get(i);
      if (acks.ack(i) != null) {
        outcomes.add(PublishOutcome.acknowledged(event.eventId()));
      } else if (!acks.completed(i)) {
        outcomes.add(unanswered(event, subjects[i], session, started, lost, interrupted, timeout));
      } else if (acks.failure(i) instanceof PublishException classified) {
        outcomes.add(PublishOutcome.failed(event.eventId(), classified));
      } else {
        Throwable failure = acks.failure(i);
        ErrorClass errorClass = NatsErrors.classify(failure);
        outcomes.add(failed(event, subjects[i], errorClass, describe(failure), failure));
      }
    }
    return outcomes;
  }

  private static PublishOutcome unanswered(
      Event event,
      String subject,
      NatsSession session,
      long started,
      boolean lost,
      boolean interrupted,
      Duration timeout) {
    if (subject != null && session.publishRefused(subject, started)) {
      return failed(
          event,
          subject,
          ErrorClass.AUTHORIZATION,
          "the server refused to let these credentials publish to the subject",
          null);
    }
    if (lost) {
      return failed(
          event,
          subject,
          ErrorClass.CONNECTION_LOST,
          "the connection was lost before the ack arrived",
          null);
    }
    String why = interrupted ? "interrupted while publishing" : "no ack within " + timeout;
    return failed(event, subject, ErrorClass.TIMEOUT, why, null);
  }

  private static String describe(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.toString();
  }

  private static PublishOutcome failed(
      Event event, String subject, ErrorClass errorClass, String why, Throwable cause) {
    return PublishOutcome.failed(event.eventId(), failure(event, subject, errorClass, why, cause));
  }

  private static PublishException failure(
      Event event, String subject, ErrorClass errorClass, String why, Throwable cause) {
    String where = subject == null ? null : "subject " + subject;
    return PublishException.forEvent("nats", errorClass, event.eventId(), where, why, cause);
  }

  private static List<PublishOutcome> failAll(
      List<Event> events, ErrorClass errorClass, String why, Throwable cause) {
    String detail = cause == null ? "" : ": " + cause;
    List<PublishOutcome> outcomes = new ArrayList<>(events.size());
    for (Event event : events) {
      outcomes.add(
          PublishOutcome.failed(
              event.eventId(),
              PublishException.forEvent(
                  "nats", errorClass, event.eventId(), null, why + detail, cause)));
    }
    return outcomes;
  }
}
