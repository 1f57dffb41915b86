package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.InvalidEventException;
import io.tandem.inbox.internal.Failures;
import java.sql.Connection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The handler registry: which handler takes an event (by type and schema version), what happens to
 * one no handler takes (the two {@link UnsupportedEventPolicy policies}), and the translation of
 * what a handler throws into {@link Refused} (dead-letter it now) or {@link HandlerFailure} (retry
 * it). Immutable once built; thread-safe.
 */
final class Handlers {
  /**
   * A registered handler: per event ({@code work}) or per batch ({@code batch}), one of the two.
   */
  record Handler(int maxSchemaVersion, InboxWork<?> work, InboxBatchWork batch) {
    /** A handler with its settings validated, naming the parameter and the bad value. */
    static Handler checked(
        String eventType, int maxSchemaVersion, InboxWork<?> work, InboxBatchWork batch) {
      if (eventType == null || eventType.isBlank()) {
        throw new IllegalArgumentException("eventType must not be blank");
      }
      if (maxSchemaVersion < 1) {
        throw new IllegalArgumentException(
            "maxSchemaVersion of '" + eventType + "' must be at least 1, was " + maxSchemaVersion);
      }
      return new Handler(maxSchemaVersion, work, batch);
    }
  }

  private final Map<String, Handler> byType;
  private final Handler anyType;
  private final UnsupportedEventPolicy unknownTypes;
  private final UnsupportedEventPolicy newerSchemas;

  Handlers(
      Map<String, Handler> byType,
      Handler anyType,
      UnsupportedEventPolicy unknownTypes,
      UnsupportedEventPolicy newerSchemas) {
    this.byType = Map.copyOf(new HashMap<>(byType));
    this.anyType = anyType;
    this.unknownTypes = unknownTypes;
    this.newerSchemas = newerSchemas;
  }

  /** The handler for the event, or null when none takes it; see {@link #unsupported(Event)}. */
  Handler handlerFor(Event event) {
    Handler handler = byType.getOrDefault(event.eventType(), anyType);
    if (handler == null || event.schemaVersion() > handler.maxSchemaVersion()) {
      return null;
    }
    return handler;
  }

  /** What happens to an event no handler takes: SKIPPED, or a {@link Refused} thrown. */
  Outcome unsupported(Event event) {
    Handler handler = byType.getOrDefault(event.eventType(), anyType);
    if (handler == null) {
      return unsupported(
          unknownTypes,
          DeadLetterReason.UNKNOWN_EVENT_TYPE,
          "no handler for event type '" + event.eventType() + "'");
    }
    return unsupported(
        newerSchemas,
        DeadLetterReason.UNSUPPORTED_SCHEMA_VERSION,
        "schema version "
            + event.schemaVersion()
            + " of '"
            + event.eventType()
            + "' is newer than the handler's "
            + handler.maxSchemaVersion());
  }

  private static Outcome unsupported(
      UnsupportedEventPolicy policy, DeadLetterReason reason, String message) {
    if (policy == UnsupportedEventPolicy.SKIP) {
      return Outcome.SKIPPED;
    }
    throw new Refused(reason, message, null);
  }

  /** Runs the event's handler (a batch handler with a list of one): APPLIED, or SKIPPED. */
  Outcome run(Connection conn, Event event) {
    Handler handler = handlerFor(event);
    if (handler == null) {
      return unsupported(event);
    }
    call(handler, conn, event);
    return Outcome.APPLIED;
  }

  /** Runs the handler on one event (a batch handler with a list of one), translating failures. */
  static void call(Handler handler, Connection conn, Event event) {
    if (handler.batch() != null) {
      callBatch(handler, conn, List.of(event));
      return;
    }
    try {
      handler.work().apply(conn, event);
    } catch (Throwable thrown) {
      throw translate(thrown);
    }
  }

  /** Runs a batch handler on {@code events}, translating what it throws. */
  static void callBatch(Handler handler, Connection conn, List<Event> events) {
    try {
      handler.batch().apply(conn, events);
    } catch (Throwable thrown) {
      throw translate(thrown);
    }
  }

  private static RuntimeException translate(Throwable thrown) {
    if (thrown instanceof FaultInjector.SimulatedCrash crash) {
      throw crash; // a drill's "kill": nothing more may happen in this process
    }
    if (thrown instanceof PermanentHandlerException || thrown instanceof InvalidEventException) {
      return new Refused(
          DeadLetterReason.HANDLER_REFUSED,
          "handler refused the event: " + Failures.describe(thrown),
          thrown);
    }
    return new HandlerFailure(thrown);
  }
}
