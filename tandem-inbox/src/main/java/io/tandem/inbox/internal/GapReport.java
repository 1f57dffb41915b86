package io.tandem.inbox.internal;

import io.tandem.inbox.AggregateGap;
import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Aggregates whose parked events wait for a missing version, each with why (not delivered yet, or
 * held by a dead letter) and the operator's way out. Every method runs on the caller's connection
 * and transaction; the SQL is the dialect's.
 */
public final class GapReport {
  private final Dialect dialect;

  public GapReport(Dialect dialect) {
    this.dialect = dialect;
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
}
