package io.tandem.outbox.internal;

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
 * Rebuilds the event of one row of the relay's read, with the envelope's full validation, or says
 * why the row is not one. A row can break a rule the database did not check: appended by plain SQL
 * before the schema checked it, or one no CHECK can say (a payload number of more digits than the
 * JSON reader takes). Such a row must not stop the rows around it, so its failure is returned, not
 * thrown; only a failure of the database itself is thrown.
 */
final class ClaimedRowDecoder {
  // Rows in the outbox were checked against the limits of their writer (and the database's
  // defaults); read them back without re-applying the possibly lower limits of this process.
  private static final EventLimits READ_LIMITS =
      EventLimits.builder()
          .maxPayloadBytes(Integer.MAX_VALUE)
          .maxHeadersBytes(Integer.MAX_VALUE)
          .maxNameLength(Integer.MAX_VALUE)
          .build();

  private final Dialect dialect;

  ClaimedRowDecoder(Dialect dialect) {
    this.dialect = dialect;
  }

  /** The row at the cursor of {@code rs}: an event, or why it is not one. */
  ClaimedRow decode(ResultSet rs) throws SQLException {
    long rowId = rs.getLong("id");
    int partition = rs.getInt("partition_no");
    String eventId = rs.getString("event_id");
    String aggregateType = rs.getString("aggregate_type");
    String aggregateId = rs.getString("aggregate_id");
    long aggregateVersion = rs.getLong("aggregate_version");
    String reason;
    try {
      Event event =
          Event.builder()
              .limits(READ_LIMITS)
              .eventId(uuid(eventId))
              .aggregate(aggregateType, aggregateId, aggregateVersion)
              .eventType(rs.getString("event_type"))
              .schemaVersion(rs.getInt("schema_version"))
              .storedPayload(rs.getString("payload"))
              .headers(EventHeaders.fromJson(required(rs.getString("headers"), "headers")))
              .occurredAt(occurredAt(rs))
              .build();
      return new ClaimedEvent(rowId, partition, event, rs.getInt("attempts") + 1);
    } catch (InvalidEventException e) {
      reason = e.rule().map(r -> r.name() + ": ").orElse("") + e.getMessage();
    } catch (RuntimeException e) {
      reason = "not an event: " + ErrorSummary.of(e);
    }
    return new UndecodableRow(
        rowId, partition, eventId, aggregateType, aggregateId, aggregateVersion, reason);
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
  private Instant occurredAt(ResultSet rs) throws SQLException {
    try {
      Instant occurred = dialect.readInstant(rs, "occurred_at");
      String text;
      if (occurred == null && (text = rs.getString("occurred_at")) != null) {
        // MariaDB's driver reads its zero date, '0000-00-00 00:00:00', as null
        throw new InvalidEventException(
            EventRule.OCCURRED_AT_RANGE, "occurred_at", "'" + text + "' is not an instant");
      }
      return required(occurred, "occurred_at");
    } catch (SQLException e) {
      if (e.getSQLState() != null && e.getSQLState().startsWith("22")) {
        throw new InvalidEventException(
            EventRule.OCCURRED_AT_RANGE, "occurred_at", "cannot be read: " + e.getMessage());
      }
      throw e;
    }
  }
}
