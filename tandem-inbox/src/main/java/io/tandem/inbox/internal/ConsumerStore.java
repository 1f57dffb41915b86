package io.tandem.inbox.internal;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.json.Json;
import io.tandem.inbox.AggregateGap;
import io.tandem.inbox.DeadLetter;
import io.tandem.inbox.DeadLetterReason;
import io.tandem.inbox.DeadLetterStatus;
import io.tandem.inbox.InboxAdvance;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The consumer side's statements: positions of the ordering guard, parked events and dead letters.
 * Every method runs on the caller's connection and transaction; the SQL is the dialect's.
 */
public final class ConsumerStore {
  /** An event kept in {@code tandem_inbox_parked}, with where its message came from. */
  public record ParkedEvent(Event event, String origin) {}

  /** A dead letter with the event envelope it holds, when the message could be decoded. */
  public record StoredDeadLetter(DeadLetter letter, Optional<String> eventJson) {}

  /** How many events of a consumer are parked and the age of the oldest. */
  public record ParkedSummary(long parked, Optional<Duration> oldest) {}

  private final Dialect dialect;

  public ConsumerStore(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * Locks the consumer's position for the event's aggregate, creating it at {@code initial} when
   * absent, and returns the last applied version.
   */
  public long lockPosition(Connection c, String consumer, String type, String id, long initial)
      throws SQLException {
    // Create first (a no-op when it exists), then lock by primary key: a locking read of an
    // absent row would take a gap lock on MariaDB, where lanes creating neighbours deadlock.
    try (PreparedStatement ps = c.prepareStatement(dialect.positionCreate())) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      ps.setLong(4, initial);
      ps.setLong(5, initial);
      ps.executeUpdate();
    }
    return selectPosition(c, consumer, type, id)
        .orElseThrow(() -> new SQLException("the position row vanished right after its insert"));
  }

  private OptionalLong selectPosition(Connection c, String consumer, String type, String id)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.positionLock())) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  /**
   * What the ordering guard knows about an event at or below its aggregate's position.
   *
   * @param seen whether the consumer processed this event id before
   * @param startVersion where the position started (versions at or below it came before)
   * @param advanceId the operator advance that moved the position over this version, if any
   */
  public record VersionProbe(boolean seen, long startVersion, OptionalLong advanceId) {}

  /** Reads {@link VersionProbe} for an event whose version is at or below the position. */
  public VersionProbe probe(Connection c, String consumer, Event e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.positionVersionProbe())) {
      ps.setString(1, consumer);
      ps.setObject(2, e.eventId());
      ps.setString(3, consumer);
      ps.setString(4, e.aggregateType());
      ps.setString(5, e.aggregateId());
      ps.setString(6, consumer);
      ps.setString(7, e.aggregateType());
      ps.setString(8, e.aggregateId());
      ps.setLong(9, e.aggregateVersion());
      ps.setLong(10, e.aggregateVersion());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        boolean seen = rs.getLong("seen") > 0;
        long start = rs.getLong("start_version");
        long advance = rs.getLong("advance_id");
        return new VersionProbe(
            seen, start, rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(advance));
      }
    }
  }

  /** Records an operator's advance of a position; returns its id. */
  public long insertAdvance(
      Connection c,
      String consumer,
      String type,
      String id,
      long from,
      long to,
      String reason,
      String advancedBy)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.advanceInsert(), new String[] {"id"})) {
      ps.setString(1, consumer);
      ps.setString(2, type);
      ps.setString(3, id);
      ps.setLong(4, from);
      ps.setLong(5, to);
      ps.setString(6, reason);
      ps.setString(7, advancedBy);
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        if (!keys.next()) {
          throw new SQLException("the advance record's insert returned no id");
        }
        return keys.getLong(1);
      }
    }
  }

  /** A consumer's advances after {@code afterId}, oldest first. */
  public List<InboxAdvance> listAdvances(Connection c, String consumer, long afterId, int limit)
      throws SQLException {
    List<InboxAdvance> advances = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.advanceList())) {
      ps.setString(1, consumer);
      ps.setLong(2, afterId);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          advances.add(
              new InboxAdvance(
                  rs.getLong("id"),
                  rs.getString("consumer"),
                  rs.getString("aggregate_type"),
                  rs.getString("aggregate_id"),
                  rs.getLong("from_version"),
                  rs.getLong("to_version"),
                  rs.getString("reason"),
                  rs.getString("advanced_by"),
                  dialect.readInstant(rs, "advanced_at")));
        }
      }
    }
    return advances;
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

  /** What {@link #advanceAndRecord} did. */
  public enum Advance {
    /** The position was not one below: decide on the locked position. */
    NOT_NEXT,
    /** The position moved to the event's version and the inbox record was inserted. */
    RECORDED,
    /** As {@link #RECORDED}, and the next version is known to wait in the parking. */
    RECORDED_SUCCESSOR_PARKED,
    /** The position moved but the event id was processed before: roll back. */
    ALREADY_PROCESSED
  }

  /**
   * The common in-order case: moves the position to the event's version if it was exactly one below
   * and records the event in the inbox — in one statement where the dialect has one.
   */
  public Advance advanceAndRecord(Connection c, String consumer, Event e) throws SQLException {
    Optional<String> combined = dialect.positionAdvanceAndRecord();
    if (combined.isEmpty()) {
      if (!advanceIfNext(c, consumer, e)) {
        return Advance.NOT_NEXT;
      }
      return recordProcessed(c, consumer, e) ? Advance.RECORDED : Advance.ALREADY_PROCESSED;
    }
    try (PreparedStatement ps = c.prepareStatement(combined.get())) {
      ps.setLong(1, e.aggregateVersion());
      ps.setString(2, consumer);
      ps.setString(3, e.aggregateType());
      ps.setString(4, e.aggregateId());
      ps.setLong(5, e.aggregateVersion() - 1);
      ps.setString(6, consumer);
      ps.setObject(7, e.eventId());
      ps.setString(8, e.aggregateType());
      ps.setString(9, e.aggregateId());
      ps.setLong(10, e.aggregateVersion());
      ps.setString(11, e.eventType());
      ps.setString(12, consumer);
      ps.setString(13, e.aggregateType());
      ps.setString(14, e.aggregateId());
      ps.setLong(15, e.aggregateVersion() + 1);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getLong(1) == 0) {
          return Advance.NOT_NEXT;
        }
        if (rs.getLong(2) != 1) {
          return Advance.ALREADY_PROCESSED;
        }
        return rs.getBoolean(3) ? Advance.RECORDED_SUCCESSOR_PARKED : Advance.RECORDED;
      }
    }
  }

  /**
   * Moves the position to the event's version if it was exactly one below, locking the row; false
   * when the position is absent or elsewhere (then {@link #lockPosition} decides).
   */
  public boolean advanceIfNext(Connection c, String consumer, Event e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.positionAdvance())) {
      ps.setLong(1, e.aggregateVersion());
      ps.setString(2, consumer);
      ps.setString(3, e.aggregateType());
      ps.setString(4, e.aggregateId());
      ps.setLong(5, e.aggregateVersion() - 1);
      return ps.executeUpdate() == 1;
    }
  }

  public void updatePosition(Connection c, String consumer, Event e) throws SQLException {
    updatePosition(c, consumer, e.aggregateType(), e.aggregateId(), e.aggregateVersion());
  }

  public void updatePosition(Connection c, String consumer, String type, String id, long version)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.positionUpdate())) {
      ps.setLong(1, version);
      ps.setString(2, consumer);
      ps.setString(3, type);
      ps.setString(4, id);
      ps.executeUpdate();
    }
  }

  /** Inserts the inbox record; false when the consumer had processed the event before. */
  public boolean recordProcessed(Connection c, String consumer, Event e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.inboxInsert())) {
      ps.setString(1, consumer);
      ps.setObject(2, e.eventId());
      ps.setString(3, e.aggregateType());
      ps.setString(4, e.aggregateId());
      ps.setLong(5, e.aggregateVersion());
      ps.setString(6, e.eventType());
      return ps.executeUpdate() == 1;
    }
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

  public List<AggregateGap> gaps(Connection c, String consumer, Duration minAge, int limit)
      throws SQLException {
    List<AggregateGap> gaps = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.parkedGaps())) {
      ps.setString(1, consumer);
      ps.setLong(2, minAge.toMillis());
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long last = rs.getLong("last_version");
          OptionalLong lastApplied = rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(last);
          gaps.add(
              new AggregateGap(
                  rs.getString("aggregate_type"),
                  rs.getString("aggregate_id"),
                  lastApplied,
                  lastApplied.orElse(0) + 1,
                  rs.getLong("first_parked"),
                  rs.getLong("parked"),
                  dialect.readInstant(rs, "oldest_parked_at"),
                  Duration.ofMillis(Math.max(0, rs.getLong("waiting_ms"))),
                  OptionalLong.empty(),
                  ""));
        }
      }
    }
    List<AggregateGap> explained = new ArrayList<>(gaps.size());
    for (AggregateGap gap : gaps) {
      explained.add(explain(c, consumer, gap));
    }
    return explained;
  }

  private AggregateGap explain(Connection c, String consumer, AggregateGap g) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.deadLetterBlocking())) {
      ps.setString(1, consumer);
      ps.setString(2, g.aggregateType());
      ps.setString(3, g.aggregateId());
      try (ResultSet rs = ps.executeQuery()) {
        String waits =
            g.parked()
                + " event(s) from version "
                + g.firstParked()
                + " wait for version "
                + g.waitingFor();
        if (rs.next()) {
          long id = rs.getLong("id");
          return new AggregateGap(
              g.aggregateType(),
              g.aggregateId(),
              g.lastApplied(),
              g.waitingFor(),
              g.firstParked(),
              g.parked(),
              g.waitingSince(),
              g.waiting(),
              OptionalLong.of(id),
              waits
                  + ", held by dead letter #"
                  + id
                  + " (version "
                  + rs.getLong("aggregate_version")
                  + ": "
                  + rs.getString("reason")
                  + "); replay or discard it to let them through");
        }
        return new AggregateGap(
            g.aggregateType(),
            g.aggregateId(),
            g.lastApplied(),
            g.waitingFor(),
            g.firstParked(),
            g.parked(),
            g.waitingSince(),
            g.waiting(),
            OptionalLong.empty(),
            waits
                + ", which has not been delivered yet ("
                + g.waiting()
                + "). If it never will be (skipped at the producer), move past it, recorded: "
                + advanceCommand(consumer, g));
      }
    }
  }

  /** The operator's command that moves {@code consumer} past the versions a gap waits for. */
  static String advanceCommand(String consumer, AggregateGap g) {
    return "tandem inbox advance --consumer "
        + shellWord(consumer)
        + " --aggregate-type "
        + shellWord(g.aggregateType())
        + " --aggregate-id "
        + shellWord(g.aggregateId())
        + " --to-version "
        + (g.firstParked() - 1)
        + " --reason '...'";
  }

  private static String shellWord(String value) {
    if (value.matches("[A-Za-z0-9._:/@+-]+")) {
      return value;
    }
    return "'" + value.replace("'", "'\\''") + "'";
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
