package io.tandem.bench;

import io.tandem.core.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The consumer benchmarks' business effect: one {@code bench_effect} row per event, written by
 * every consumer under test (bare, bare batched, inbox, each scale-out instance) so that they do
 * the same work. {@code applied_by} names the consumer process that wrote the row, {@code
 * applied_at} the database's clock when it did.
 */
final class ConsumerEffects {
  static final String TABLE =
      "CREATE TABLE bench_effect (id bigserial PRIMARY KEY, account text NOT NULL,"
          + " version bigint NOT NULL, amount_cents bigint NOT NULL,"
          + " applied_by text NOT NULL DEFAULT '',"
          + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp())";
  private static final String INSERT =
      "INSERT INTO bench_effect (account, version, amount_cents, applied_by) VALUES (?, ?, ?, ?)";

  private ConsumerEffects() {}

  /** One event's row, in its own statement. */
  static void one(Connection c, Event e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      bind(ps, e, "");
      ps.executeUpdate();
    }
  }

  /** The rows of several events in one JDBC batch. */
  static void batch(Connection c, List<Event> events) throws SQLException {
    batch(c, events, "");
  }

  /** The rows of several events in one JDBC batch, marked as written by {@code appliedBy}. */
  static void batch(Connection c, List<Event> events, String appliedBy) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      for (Event e : events) {
        bind(ps, e, appliedBy);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static void bind(PreparedStatement ps, Event e, String appliedBy) throws SQLException {
    ps.setString(1, e.aggregateId());
    ps.setLong(2, e.aggregateVersion());
    ps.setLong(3, e.payload().length());
    ps.setString(4, appliedBy);
  }
}
