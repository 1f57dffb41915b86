package io.tandem.inbox.internal;

import io.tandem.core.Event;
import io.tandem.core.json.Json;
import io.tandem.inbox.DeadLetter;
import io.tandem.inbox.DeadLetterReason;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The statements on {@code tandem_dead_letter}: insert, list, lock, resolve, count, and the oldest
 * open one holding an aggregate. Every method runs on the caller's connection and transaction; the
 * SQL is the dialect's.
 */
public final class DeadLetterStore {
  /** A dead letter with the event envelope it holds, when the message could be decoded. */
  public record StoredDeadLetter(DeadLetter letter, Optional<String> eventJson) {}

  private final Dialect dialect;

  public DeadLetterStore(Dialect dialect) {
    this.dialect = dialect;
  }

  /** Inserts a dead letter; {@code event} is null when the message could not be decoded. */
  public void insertDeadLetter(
      Connection c,
      String consumer,
      DeadLetterReason reasonClass,
      String reason,
      int attempts,
      String origin,
      Map<String, String> rawHeaders,
      byte[] rawBody,
      Event event)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.deadLetterInsert())) {
      ps.setString(1, consumer);
      ps.setString(2, reasonClass.name());
      ps.setString(3, reason);
      ps.setInt(4, attempts);
      ps.setString(5, origin);
      ps.setString(6, Json.write(rawHeaders));
      ps.setBytes(7, rawBody);
      if (event == null) {
        ps.setNull(8, Types.OTHER);
        for (int i = 9; i <= 13; i++) {
          ps.setNull(i, i == 11 ? Types.BIGINT : Types.VARCHAR);
        }
      } else {
        ps.setObject(8, event.eventId());
        ps.setString(9, event.aggregateType());
        ps.setString(10, event.aggregateId());
        ps.setLong(11, event.aggregateVersion());
        ps.setString(12, event.eventType());
        ps.setString(13, EventJson.write(event));
      }
      ps.executeUpdate();
    }
  }

  public List<DeadLetter> listDeadLetters(
      Connection c, String consumer, DeadLetterStatus status, long afterId, int limit)
      throws SQLException {
    List<DeadLetter> letters = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.deadLetterList())) {
      ps.setString(1, consumer);
      ps.setString(2, status.name());
      ps.setLong(3, afterId);
      ps.setInt(4, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          letters.add(readDeadLetter(rs).letter());
        }
      }
    }
    return letters;
  }

  public Optional<StoredDeadLetter> lockDeadLetter(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.deadLetterLock())) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(readDeadLetter(rs)) : Optional.empty();
      }
    }
  }

  public boolean resolveDeadLetter(Connection c, long id, DeadLetterStatus status)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.deadLetterResolve())) {
      ps.setString(1, status.name());
      ps.setLong(2, id);
      return ps.executeUpdate() == 1;
    }
  }

  public long countDeadLetters(Connection c, String consumer) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.deadLetterCount())) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The oldest open dead letter above the position of an aggregate: its id and version. */
  public Optional<long[]> blockingDeadLetter(Connection c, String consumer, String type, String id)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.deadLetterBlocking())) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(new long[] {rs.getLong("id"), rs.getLong("aggregate_version")})
            : Optional.empty();
      }
    }
  }

  private StoredDeadLetter readDeadLetter(ResultSet rs) throws SQLException {
    String eventId = rs.getString("event_id");
    long version = rs.getLong("aggregate_version");
    Instant resolved = dialect.readInstant(rs, "resolved_at");
    DeadLetter letter =
        new DeadLetter(
            rs.getLong("id"),
            rs.getString("consumer"),
            DeadLetterStatus.valueOf(rs.getString("status")),
            DeadLetterReason.valueOf(rs.getString("reason_class")),
            rs.getString("reason"),
            rs.getInt("attempts"),
            rs.getString("origin"),
            Json.readStringMap(rs.getString("raw_headers")),
            rs.getBytes("raw_body"),
            eventId == null ? null : UUID.fromString(eventId),
            rs.getString("aggregate_type"),
            rs.getString("aggregate_id"),
            version,
            rs.getString("event_type"),
            dialect.readInstant(rs, "dead_at"),
            resolved);
    return new StoredDeadLetter(letter, Optional.ofNullable(rs.getString("event_json")));
  }
}
