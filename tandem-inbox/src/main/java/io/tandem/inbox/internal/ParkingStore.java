package io.tandem.inbox.internal;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Events parked in {@code tandem_inbox_parked} ahead of a missing version: park, find, delete, and
 * what is ready or waiting. Every method runs on the caller's connection and transaction; the SQL
 * is the dialect's.
 */
public final class ParkingStore {
  /** An event kept in {@code tandem_inbox_parked}, with where its message came from. */
  public record ParkedEvent(Event event, String origin) {}

  /** How many events of a consumer are parked and the age of the oldest. */
  public record ParkedSummary(long parked, Optional<Duration> oldest) {}

  private final Dialect dialect;

  public ParkingStore(Dialect dialect) {
    this.dialect = dialect;
  }

  public void park(Connection c, String consumer, Event e, String origin) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.parkedInsert())) {
      ps.setString(1, consumer);
      ps.setString(2, e.aggregateType());
      ps.setString(3, e.aggregateId());
      ps.setLong(4, e.aggregateVersion());
      ps.setObject(5, e.eventId());
      ps.setString(6, e.eventType());
      ps.setInt(7, e.schemaVersion());
      ps.setString(8, e.payload());
      ps.setString(9, e.headers().toJson());
      dialect.bindInstant(ps, 10, e.occurredAt());
      ps.setString(11, origin);
      ps.executeUpdate();
    }
  }

  public Optional<ParkedEvent> findParked(
      Connection c, String consumer, String type, String id, long version) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.parkedFind())) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      ps.setLong(4, version);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        Event event =
            Event.builder()
                .eventId(UUID.fromString(rs.getString("event_id")))
                .aggregate(type, id, version)
                .eventType(rs.getString("event_type"))
                .schemaVersion(rs.getInt("schema_version"))
                .storedPayload(rs.getString("payload"))
                .headers(EventHeaders.fromJson(rs.getString("headers")))
                .occurredAt(dialect.readInstant(rs, "occurred_at"))
                .build();
        return Optional.of(new ParkedEvent(event, rs.getString("origin")));
      }
    }
  }

  public void deleteParked(Connection c, String consumer, String type, String id, long upTo)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.parkedDelete())) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      ps.setLong(4, upTo);
      ps.executeUpdate();
    }
  }

  /** The lowest parked version of an aggregate, if any is parked. */
  public OptionalLong lowestParked(Connection c, String consumer, String type, String id)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.parkedLowest())) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long lowest = rs.getLong("lowest");
        return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(lowest);
      }
    }
  }

  /** Aggregates (type, id) with a parked event that could be applied now. */
  public List<String[]> readyAggregates(Connection c, String consumer, int limit)
      throws SQLException {
    List<String[]> ready = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.parkedReady())) {
      ps.setString(1, consumer);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ready.add(new String[] {rs.getString(1), rs.getString(2)});
        }
      }
    }
    return ready;
  }

  public ParkedSummary parkedSummary(Connection c, String consumer) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.parkedSummary())) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long oldest = rs.getLong("oldest_ms");
        boolean none = rs.wasNull();
        return new ParkedSummary(
            rs.getLong("parked"),
            none ? Optional.empty() : Optional.of(Duration.ofMillis(Math.max(0, oldest))));
      }
    }
  }
}
