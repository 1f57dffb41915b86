package io.tandem.outbox;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.TandemException;
import io.tandem.core.Tracing;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Appends events to the outbox table inside the caller's open transaction.
 *
 * <p>{@link #append} never opens, commits or rolls back a transaction and never talks to a broker:
 * the event row commits or rolls back together with the caller's business change. Publishing is the
 * {@link OutboxRelay}'s job, after the commit.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.create();
 * try (Connection conn = dataSource.getConnection()) {
 *   conn.setAutoCommit(false);
 *   // ... UPDATE orders SET status = 'CONFIRMED', version = 3 WHERE id = ? ...
 *   outbox.append(conn, Event.builder()
 *       .aggregate("Order", orderId, 3)
 *       .eventType("OrderConfirmed")
 *       .payload(json)
 *       .build());
 *   conn.commit();
 * }
 * }</pre>
 *
 * <p>When an OpenTelemetry span is current (see {@link Tracing}), an event without a {@code
 * traceparent} header of its own is stored with the span's {@code traceparent} and {@code
 * tracestate}; an event that has one keeps it.
 *
 * <p>Thread-safe; one instance can serve the whole application.
 */
public final class Outbox {
  private final Dialect dialect;

  private Outbox(Dialect dialect) {
    this.dialect = dialect;
  }

  /** An outbox whose dialect is detected from each connection. */
  public static Outbox create() {
    return new Outbox(null);
  }

  /** An outbox for a known database family. */
  public static Outbox create(Dialect dialect) {
    if (dialect == null) {
      throw new IllegalArgumentException("dialect must not be null; use Outbox.create() to detect");
    }
    return new Outbox(dialect);
  }

  /**
   * Inserts {@code event} into the outbox as part of {@code connection}'s open transaction.
   *
   * @throws TandemException when the connection is in auto-commit mode (there is no transaction to
   *     join: call {@code setAutoCommit(false)} first)
   * @throws OutboxConflictException when the event id or the aggregate version already exists
   * @throws JdbcException when the insert fails for another reason
   */
  public void append(Connection connection, Event event) {
    appendAll(connection, List.of(event));
  }

  /** Inserts several events in one round trip, in list order, in the caller's transaction. */
  public void appendAll(Connection connection, List<Event> events) {
    requireOpenTransaction(connection);
    Dialect d = dialect != null ? dialect : Dialect.of(connection);
    events = withTraceContext(events);
    try {
      d.outbox().insert(connection, events);
    } catch (SQLException e) {
      SQLException cause = e.getNextException() != null ? e.getNextException() : e;
      if (d.isUniqueViolation(cause)) {
        throw new OutboxConflictException(
            "the outbox already has "
                + describe(events)
                + ": event ids are unique and aggregate_version must grow by one per event of an"
                + " aggregate; roll back this transaction. Cause: "
                + cause.getMessage(),
            cause);
      }
      throw new JdbcException("appending " + describe(events) + " to the outbox failed", cause);
    }
  }

  private static List<Event> withTraceContext(List<Event> events) {
    Map<String, String> context = Tracing.get().currentContext();
    if (context.isEmpty()) {
      return events;
    }
    List<Event> traced = new ArrayList<>(events.size());
    for (Event e : events) {
      if (e.headers().traceparent().isPresent()) {
        traced.add(e);
      } else {
        Map<String, String> headers = new LinkedHashMap<>(e.headers().asMap());
        headers.remove(EventHeaders.TRACESTATE); // belongs to its traceparent, which is the span's
        headers.putAll(context);
        traced.add(e.withHeaders(EventHeaders.of(headers)));
      }
    }
    return traced;
  }

  private static String describe(List<Event> events) {
    return events.size() == 1 ? "event " + events.get(0) : events.size() + " events";
  }

  private static void requireOpenTransaction(Connection connection) {
    try {
      if (connection.getAutoCommit()) {
        throw new TandemException(
            "Outbox.append needs the caller's open transaction, but the connection is in"
                + " auto-commit mode: call connection.setAutoCommit(false) (or run inside your"
                + " framework's transaction) so the event commits together with the business"
                + " change");
      }
    } catch (SQLException e) {
      throw new JdbcException("cannot read the connection's auto-commit mode", e);
    }
  }
}
