package io.tandem.outbox;

import io.tandem.core.ErrorSummary;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.EventLimits;
import io.tandem.core.EventRule;
import io.tandem.core.InvalidEventException;
import io.tandem.jdbc.Dialect;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;

/**
 * The event columns of one {@code tandem_outbox} row as the database stores them, and the event
 * they hold. Every relay builds the event it hands to the {@link io.tandem.core.spi.Transport} from
 * this one place — the polling relay from its read, the CDC relay from the database's change stream
 * — so a consumer cannot tell which relay published a message.
 *
 * <pre>{@code
 * OutboxRow row = new OutboxRow(id, eventId, "order", "o-1", 1, "OrderPlaced", 1,
 *     "{\"total\": 5}", "{}", occurredAt);
 * Event event = row.toEvent(); // or InvalidEventException naming the rule
 * }</pre>
 *
 * <p>Text columns are as the database renders them ({@code payload} and {@code headers} as JSON
 * text: PostgreSQL's rendering of the jsonb, MariaDB's text as written). Immutable.
 *
 * @param rowId the row's {@code id}
 * @param eventId the {@code event_id} column as text
 * @param aggregateType the {@code aggregate_type} column
 * @param aggregateId the {@code aggregate_id} column
 * @param aggregateVersion the {@code aggregate_version} column
 * @param eventType the {@code event_type} column
 * @param schemaVersion the {@code schema_version} column
 * @param payload the {@code payload} column as JSON text
 * @param headers the {@code headers} column as JSON text
 * @param occurredAt the {@code occurred_at} column
 */
public record OutboxRow(
    long rowId,
    String eventId,
    String aggregateType,
    String aggregateId,
    long aggregateVersion,
    String eventType,
    int schemaVersion,
    String payload,
    String headers,
    Instant occurredAt) {

  // Rows in the outbox were checked against the limits of their writer (and the database's
  // defaults); read them back without re-applying the possibly lower limits of this process.
  private static final EventLimits READ_LIMITS =
      EventLimits.builder()
          .maxPayloadBytes(Integer.MAX_VALUE)
          .maxHeadersBytes(Integer.MAX_VALUE)
          .maxNameLength(Integer.MAX_VALUE)
          .build();

  /**
   * Reads the event columns at the cursor of {@code rs} (columns named as in the table).
   *
   * @throws InvalidEventException if {@code occurred_at} holds no instant (MariaDB's zero date)
   * @throws SQLException if the database fails
   */
  public static OutboxRow read(ResultSet rs, Dialect dialect) throws SQLException {
    return new OutboxRow(
        rs.getLong("id"),
        rs.getString("event_id"),
        rs.getString("aggregate_type"),
        rs.getString("aggregate_id"),
        rs.getLong("aggregate_version"),
        rs.getString("event_type"),
        rs.getInt("schema_version"),
        rs.getString("payload"),
        rs.getString("headers"),
        occurredAt(rs, dialect));
  }

  /**
   * The event this row holds, with the envelope's full validation but without the size limits
   * (those are the writer's and the database's).
   *
   * @throws InvalidEventException naming the {@link EventRule} the row breaks
   */
  public Event toEvent() {
    return Event.builder()
        .limits(READ_LIMITS)
        .eventId(uuid(eventId))
        .aggregate(aggregateType, aggregateId, aggregateVersion)
        .eventType(eventType)
        .schemaVersion(schemaVersion)
        .storedPayload(payload)
        .headers(EventHeaders.fromJson(required(headers, "headers")))
        .occurredAt(required(occurredAt, "occurred_at"))
        .build();
  }

  /**
   * Why a row is not an event, as the relays store it in {@code last_error} when they quarantine
   * it: the rule it breaks and the value, or a summary of any other failure.
   */
  public static String undecodableReason(RuntimeException failure) {
    if (failure instanceof InvalidEventException e) {
      return e.rule().map(r -> r.name() + ": ").orElse("") + e.getMessage();
    }
    return "not an event: " + ErrorSummary.of(failure);
  }

  private static UUID uuid(String text) {
    required(text, "event_id");
    try {
      UUID id = UUID.fromString(text);
      if (id.toString().equals(text.toLowerCase(Locale.ROOT))) {
        return id;
      }
    } catch (IllegalArgumentException e) {
      // refused below
    }
    throw new InvalidEventException(
        EventRule.EVENT_ID_UUID, "event_id", "'" + text + "' is not a UUID");
  }

  private static <T> T required(T value, String field) {
    if (value == null) {
      throw new InvalidEventException(EventRule.REQUIRED, field, "must not be null");
    }
    return value;
  }

  /**
   * The row's occurred_at. A value the driver cannot turn into an instant (MariaDB's zero date) is
   * a data exception of this row (SQLState class 22), not a failure of the database.
   */
  private static Instant occurredAt(ResultSet rs, Dialect dialect) throws SQLException {
    try {
      Instant occurred = dialect.readInstant(rs, "occurred_at");
      String text;
      if (occurred == null && (text = rs.getString("occurred_at")) != null) {
        // MariaDB's driver reads its zero date, '0000-00-00 00:00:00', as null
        throw new InvalidEventException(
            EventRule.OCCURRED_AT_RANGE, "occurred_at", "'" + text + "' is not an instant");
      }
      return occurred;
    } catch (SQLException e) {
      if (e.getSQLState() != null && e.getSQLState().startsWith("22")) {
        throw new InvalidEventException(
            EventRule.OCCURRED_AT_RANGE, "occurred_at", "cannot be read: " + e.getMessage());
      }
      throw e;
    }
  }
}
