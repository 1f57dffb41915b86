package io.tandem.outbox;

import io.tandem.core.TandemException;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.OperationStatements;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Operator actions and status of an outbox: list quarantined events, replay them (back to pending,
 * same event id), skip one with a recorded reason, and read the backlog and the partition
 * ownership. Nothing here ever deletes an event.
 *
 * <pre>{@code
 * OutboxOperations ops = OutboxOperations.create(dataSource);
 * for (QuarantinedEvent q : ops.listQuarantined(100)) { ... }
 * ops.replay(eventId);                       // publish it again, with its original id
 * ops.skip(otherId, "superseded by v7, ticket OPS-123");
 * OutboxStatus status = ops.status();        // backlog age, stranded partitions, relays
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class OutboxOperations {
  private final DataSource dataSource;
  private final Dialect dialect;
  private final OperationStatements statements;

  private OutboxOperations(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.statements = dialect.operations();
  }

  public static OutboxOperations create(DataSource dataSource) {
    return new OutboxOperations(dataSource, Dialect.of(dataSource));
  }

  public static OutboxOperations create(DataSource dataSource, Dialect dialect) {
    return new OutboxOperations(dataSource, dialect);
  }

  /** The oldest quarantined events first, at most {@code limit} (1 to 10,000). */
  public List<QuarantinedEvent> listQuarantined(int limit) {
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000, was " + limit);
    }
    try (Connection c = dataSource.getConnection()) {
      return statements.listQuarantined(c, limit, this::quarantined);
    } catch (SQLException e) {
      throw new JdbcException("listing quarantined events failed", e);
    }
  }

  private List<QuarantinedEvent> quarantined(ResultSet rs) throws SQLException {
    List<QuarantinedEvent> result = new ArrayList<>();
    while (rs.next()) {
      result.add(
          new QuarantinedEvent(
              rs.getObject("event_id", UUID.class),
              rs.getString("aggregate_type"),
              rs.getString("aggregate_id"),
              rs.getLong("aggregate_version"),
              rs.getString("event_type"),
              rs.getInt("attempts"),
              rs.getString("error_class"),
              rs.getString("last_error"),
              dialect.readInstant(rs, "quarantined_at"),
              dialect.readInstant(rs, "created_at")));
    }
    return result;
  }

  /**
   * Puts a quarantined event back to pending, with its attempts reset; the relay publishes it again
   * with the same event id, then the later events of its aggregate.
   *
   * @throws TandemException when no quarantined event has this id
   */
  public void replay(UUID eventId) {
    int n = update("replaying event " + eventId, c -> statements.replay(c, eventId));
    if (n == 0) {
      throw new TandemException(
          "event "
              + eventId
              + " is not quarantined (unknown, pending, published or skipped);"
              + " list quarantined events with listQuarantined()");
    }
  }

  /** Puts every quarantined event back to pending; returns how many. */
  public int replayAll() {
    return update("replaying all quarantined events", statements::replayAll);
  }

  /**
   * Gives up on one unpublished event (quarantined or pending) for good, with a reason kept in the
   * row. The event is never published; later events of its aggregate flow again. The row stays in
   * the table for review.
   *
   * @throws IllegalArgumentException when the reason is blank
   * @throws TandemException when no unpublished, unskipped event has this id
   */
  public void skip(UUID eventId, String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException(
          "a reason is required to skip event " + eventId + " (it is kept for review)");
    }
    int n = update("skipping event " + eventId, c -> statements.skip(c, eventId, reason));
    if (n == 0) {
      throw new TandemException(
          "event "
              + eventId
              + " cannot be skipped: it is unknown, already published or already"
              + " skipped");
    }
  }

  /**
   * The id of every event in the outbox that retention has not removed, published or not: for
   * checking a run end to end (every committed event reached its consumer, {@code
   * InboxOperations#processedEventIds}). Reads the whole table; not for large production outboxes.
   */
  public Set<UUID> eventIds() {
    try (Connection c = dataSource.getConnection()) {
      return statements.eventIds(
          c,
          rs -> {
            Set<UUID> ids = new HashSet<>();
            while (rs.next()) {
              ids.add(rs.getObject("event_id", UUID.class));
            }
            return ids;
          });
    } catch (SQLException e) {
      throw new JdbcException("reading the outbox's event ids failed", e);
    }
  }

  /** Backlog, quarantine, partition ownership and relay instances, read in one go. */
  public OutboxStatus status() {
    try (Connection c = dataSource.getConnection()) {
      long[] backlog =
          statements.backlog(
              c,
              rs -> {
                rs.next();
                return new long[] {
                  rs.getLong("pending"),
                  Math.max(0, rs.getLong("oldest_pending_age_ms")),
                  rs.getLong("quarantined"),
                  rs.getLong("skipped"),
                  rs.getLong("published")
                };
              });
      List<OutboxStatus.Partition> partitions = statements.partitions(c, this::partitions);
      List<OutboxStatus.Instance> instances = statements.instances(c, this::instances);
      return new OutboxStatus(
          backlog[0],
          Duration.ofMillis(backlog[1]),
          backlog[2],
          backlog[3],
          backlog[4],
          partitions,
          instances);
    } catch (SQLException e) {
      throw new JdbcException("reading the outbox status failed", e);
    }
  }

  private List<OutboxStatus.Partition> partitions(ResultSet rs) throws SQLException {
    List<OutboxStatus.Partition> partitions = new ArrayList<>();
    while (rs.next()) {
      long remaining = rs.getLong("lease_remaining_ms");
      boolean free = rs.wasNull();
      partitions.add(
          new OutboxStatus.Partition(
              rs.getInt("partition_no"),
              rs.getString("owner"),
              rs.getLong("epoch"),
              free ? null : Duration.ofMillis(remaining),
              rs.getLong("pending")));
    }
    return partitions;
  }

  private List<OutboxStatus.Instance> instances(ResultSet rs) throws SQLException {
    List<OutboxStatus.Instance> instances = new ArrayList<>();
    while (rs.next()) {
      instances.add(
          new OutboxStatus.Instance(
              rs.getString("relay_id"),
              rs.getString("host"),
              dialect.readInstant(rs, "started_at"),
              Duration.ofMillis(rs.getLong("heartbeat_age_ms"))));
    }
    return instances;
  }

  /**
   * How many events wait to be published (neither quarantined nor skipped): one count, cheaper than
   * {@link #status()}, for a tool that waits for a relay to drain the outbox.
   */
  public long pending() {
    try (Connection c = dataSource.getConnection()) {
      return statements.pending(c);
    } catch (SQLException e) {
      throw new JdbcException("counting the pending events failed", e);
    }
  }

  /**
   * How many events each relay marked published (by {@code published_by}), most first, among the
   * rows retention has not removed yet: how the work spread over the instances.
   */
  public Map<String, Long> publishedByRelay() {
    try (Connection c = dataSource.getConnection()) {
      return statements.publishedByRelay(
          c,
          rs -> {
            Map<String, Long> counts = new LinkedHashMap<>();
            while (rs.next()) {
              counts.put(rs.getString("published_by"), rs.getLong("published"));
            }
            return counts;
          });
    } catch (SQLException e) {
      throw new JdbcException("reading the published events per relay failed", e);
    }
  }

  /**
   * The time from append to publish ({@code published_at - created_at}, both the database's clock)
   * of the {@code newest} events published last (by row order), newest first: the commit-to-publish
   * latency whichever relay marked them.
   */
  public List<Duration> publishDelays(int newest) {
    if (newest < 1) {
      throw new IllegalArgumentException("newest must be at least 1, was " + newest);
    }
    try (Connection c = dataSource.getConnection()) {
      return statements.newestPublished(
          c,
          newest,
          rs -> {
            List<Duration> delays = new ArrayList<>(newest);
            while (rs.next()) {
              delays.add(
                  Duration.between(
                      dialect.readInstant(rs, "created_at"),
                      dialect.readInstant(rs, "published_at")));
            }
            return delays;
          });
    } catch (SQLException e) {
      throw new JdbcException("reading the publish delays failed", e);
    }
  }

  private int update(String what, Update update) {
    try (Connection c = dataSource.getConnection()) {
      return update.run(c);
    } catch (SQLException e) {
      throw new JdbcException(what + " failed", e);
    }
  }

  private interface Update {
    int run(Connection c) throws SQLException;
  }
}
