package io.tandem.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * The operators' statements on the outbox: quarantined events (list, replay, skip), status figures,
 * and retention of published rows. Each method binds its own parameters and runs on the caller's
 * connection; a query hands its rows to a {@link ResultReader}, with the columns its Javadoc names.
 * Get it from {@link Dialect#operations()}.
 *
 * <p>Stateless and thread-safe.
 */
public final class OperationStatements {
  private static final String LIST_QUARANTINED =
      """
      SELECT event_id, aggregate_type, aggregate_id, aggregate_version, event_type, attempts,
             error_class, last_error, quarantined_at, created_at
        FROM tandem_outbox
       WHERE quarantined_at IS NOT NULL AND published_at IS NULL AND skipped_at IS NULL
       ORDER BY id
       LIMIT ?
      """;

  private static final String PENDING =
      """
      SELECT count(*)
        FROM tandem_outbox
       WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL
      """;

  private static final String PUBLISHED_BY_RELAY =
      """
      SELECT published_by, count(*) AS published
        FROM tandem_outbox
       WHERE published_at IS NOT NULL
       GROUP BY published_by
       ORDER BY count(*) DESC
      """;

  private static final String NEWEST_PUBLISHED =
      """
      SELECT created_at, published_at
        FROM tandem_outbox
       WHERE published_at IS NOT NULL
       ORDER BY id DESC
       LIMIT ?
      """;

  private static final String EVENT_IDS = "SELECT event_id FROM tandem_outbox ORDER BY id";

  private static final String WATERMARK =
      """
      SELECT coalesce(
          (SELECT min(id) FROM tandem_outbox
            WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL),
          (SELECT max(id) + 1 FROM tandem_outbox),
          0) AS watermark
      """;

  /** The texts of one database family. */
  record Sql(
      String replay,
      String replayAll,
      String skip,
      String backlog,
      String partitions,
      String instances,
      String retentionCount,
      String retentionDelete,
      String eventsByCorrelationId) {}

  private final Sql sql;

  OperationStatements(Sql sql) {
    this.sql = sql;
  }

  /**
   * Quarantined events in row order, at most {@code limit}. Columns: event_id, aggregate_type,
   * aggregate_id, aggregate_version, event_type, attempts, error_class, last_error, quarantined_at,
   * created_at.
   */
  public <T> T listQuarantined(Connection connection, int limit, ResultReader<T> reader)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(LIST_QUARANTINED)) {
      ps.setInt(1, limit);
      return read(ps, reader);
    }
  }

  /**
   * Puts one quarantined event back to pending, for a first attempt now.
   *
   * @return 1, or 0 when the event is not quarantined
   */
  public int replay(Connection connection, UUID eventId) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.replay())) {
      ps.setObject(1, eventId);
      return ps.executeUpdate();
    }
  }

  /** Puts every quarantined event back to pending; returns how many. */
  public int replayAll(Connection connection) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.replayAll())) {
      return ps.executeUpdate();
    }
  }

  /**
   * Skips one unpublished event with a reason: the relay never publishes it.
   *
   * @return 1, or 0 when the event is published, skipped already or absent
   */
  public int skip(Connection connection, UUID eventId, String reason) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.skip())) {
      ps.setString(1, reason);
      ps.setObject(2, eventId);
      return ps.executeUpdate();
    }
  }

  /**
   * Backlog figures, one row. Columns: pending (count), oldest_pending_age_ms (null when nothing is
   * pending), quarantined (count), skipped (count), published (count).
   */
  public <T> T backlog(Connection connection, ResultReader<T> reader) throws SQLException {
    return query(connection, sql.backlog(), reader);
  }

  /**
   * Partition ownership, by partition number. Columns: partition_no, owner, epoch,
   * lease_remaining_ms (negative when expired, null when free), pending (count of due-or-waiting
   * events in the partition).
   */
  public <T> T partitions(Connection connection, ResultReader<T> reader) throws SQLException {
    return query(connection, sql.partitions(), reader);
  }

  /** Relay instances, by id. Columns: relay_id, host, started_at, heartbeat_age_ms. */
  public <T> T instances(Connection connection, ResultReader<T> reader) throws SQLException {
    return query(connection, sql.instances(), reader);
  }

  /** How many events wait to be published (not quarantined, not skipped). */
  public long pending(Connection connection) throws SQLException {
    return count(connection, PENDING);
  }

  /** Published events per relay, most first. Columns: published_by, published. */
  public <T> T publishedByRelay(Connection connection, ResultReader<T> reader) throws SQLException {
    return query(connection, PUBLISHED_BY_RELAY, reader);
  }

  /**
   * The newest {@code limit} published events' append and publish times, newest first. Columns:
   * created_at, published_at (both the database's clock).
   */
  public <T> T newestPublished(Connection connection, int limit, ResultReader<T> reader)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(NEWEST_PUBLISHED)) {
      ps.setInt(1, limit);
      return read(ps, reader);
    }
  }

  /**
   * Every event id in the outbox (published, pending or quarantined), oldest first. Column:
   * event_id.
   */
  public <T> T eventIds(Connection connection, ResultReader<T> reader) throws SQLException {
    return query(connection, EVENT_IDS, reader);
  }

  /**
   * Retention's conservative watermark: the smallest id of a pending event, or one past the largest
   * id when nothing is pending (0 for an empty outbox).
   */
  public long retentionWatermark(Connection connection) throws SQLException {
    return count(connection, WATERMARK);
  }

  /** How many published rows older than {@code age} and below {@code watermark} there are. */
  public long retentionCount(Connection connection, Duration age, long watermark)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.retentionCount())) {
      ps.setLong(1, age.toMillis());
      ps.setLong(2, watermark);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Deletes one batch of at most {@code batchSize} published rows older than {@code age} and below
   * {@code watermark}, lowest ids first.
   *
   * @return how many rows were deleted
   */
  public int retentionDelete(Connection connection, Duration age, long watermark, int batchSize)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.retentionDelete())) {
      ps.setLong(1, age.toMillis());
      ps.setLong(2, watermark);
      ps.setInt(3, batchSize);
      return ps.executeUpdate();
    }
  }

  /**
   * The outbox events of one business transaction: those whose {@code correlationid} header equals
   * {@code correlationId}, by {@code occurred_at} then row id. Columns: id, event_id,
   * aggregate_type, aggregate_id, aggregate_version, event_type, occurred_at, published_at. Without
   * an index on the header this reads the whole outbox (see the saga trail's documentation for the
   * optional expression index).
   */
  public <T> T eventsByCorrelationId(
      Connection connection, String correlationId, ResultReader<T> reader) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.eventsByCorrelationId())) {
      ps.setString(1, correlationId);
      return read(ps, reader);
    }
  }

  private static <T> T query(Connection connection, String text, ResultReader<T> reader)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(text)) {
      return read(ps, reader);
    }
  }

  private static <T> T read(PreparedStatement ps, ResultReader<T> reader) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return reader.read(rs);
    }
  }

  private static long count(Connection connection, String text) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(text);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
