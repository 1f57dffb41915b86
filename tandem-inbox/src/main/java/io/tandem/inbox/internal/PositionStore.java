package io.tandem.inbox.internal;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The ordering guard's statements on {@code tandem_inbox_position}, and the one-row inbox record
 * insert. Every method runs on the caller's connection and transaction; the SQL is the dialect's.
 */
public final class PositionStore {
  private final Dialect dialect;

  public PositionStore(Dialect dialect) {
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
}
