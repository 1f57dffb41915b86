package io.tandem.saga.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import io.tandem.core.json.Json;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.ResultReader;
import io.tandem.saga.SagaStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The statements of {@code tandem_saga}, one row per instance, on the caller's connection and
 * transaction. Every write of a running instance checks the version it read.
 */
public final class SagaRows {
  private static final String SAGA_COLUMNS =
      """
      SELECT saga_id, saga_type, status, step_index, attempt, pending, data, version, wakeup_at,
             deadline_at, last_error, started_at, updated_at, ended_at
        FROM tandem_saga
      """;

  private static final String SAGA_INSERT =
      """
      INSERT INTO tandem_saga
          (saga_id, saga_type, status, step_index, attempt, pending, data, version, wakeup_at,
           deadline_at, started_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
      """;

  private static final String SAGA_LOCK = SAGA_COLUMNS + " WHERE saga_id = ? FOR UPDATE";

  private static final String SAGA_GET = SAGA_COLUMNS + " WHERE saga_id = ?";

  private static final String SAGA_UPDATE =
      """
      UPDATE tandem_saga
         SET status = ?, step_index = ?, attempt = ?, pending = ?, data = ?, version = version + 1,
             wakeup_at = ?, last_error = ?, updated_at = ?, ended_at = ?
       WHERE saga_id = ? AND version = ?
      """;

  private static final String SAGA_DUE =
      """
      SELECT saga_id FROM tandem_saga
       WHERE wakeup_at <= ?
       ORDER BY wakeup_at
       LIMIT ?
         FOR UPDATE SKIP LOCKED
      """;

  private static final String SAGA_LIST =
      SAGA_COLUMNS
          + """
           WHERE saga_type = COALESCE(?, saga_type) AND status = COALESCE(?, status)
             AND started_at <= ?
           ORDER BY started_at, saga_id
           LIMIT ?
          """;

  private static final String SAGA_COUNTS =
      """
      SELECT saga_type, status, count(*) AS instances, min(updated_at) AS oldest_update
        FROM tandem_saga
       GROUP BY saga_type, status
      """;

  private final Dialect dialect;

  public SagaRows(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * Instances per type and status, with the oldest last change of each group. Columns: saga_type,
   * status, instances, oldest_update.
   */
  public static <T> T counts(Connection c, ResultReader<T> reader) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_COUNTS);
        ResultSet rs = ps.executeQuery()) {
      return reader.read(rs);
    }
  }

  public void insert(Connection c, SagaRow r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_INSERT)) {
      ps.setObject(1, r.id());
      ps.setString(2, r.type());
      ps.setString(3, r.status().name());
      ps.setInt(4, r.stepIndex());
      ps.setInt(5, r.attempt());
      ps.setString(6, Json.write(r.pending()));
      ps.setString(7, r.data());
      dialect.bindInstant(ps, 8, r.wakeupAt());
      dialect.bindInstant(ps, 9, r.deadlineAt());
      dialect.bindInstant(ps, 10, r.startedAt());
      dialect.bindInstant(ps, 11, r.updatedAt());
      ps.executeUpdate();
    }
  }

  /** Reads and locks one instance (an operator's action; transitions check versions instead). */
  public Optional<SagaRow> lock(Connection c, UUID id) throws SQLException {
    return one(c, SAGA_LOCK, id);
  }

  /** Reads one instance without locking it. */
  public Optional<SagaRow> get(Connection c, UUID id) throws SQLException {
    return one(c, SAGA_GET, id);
  }

  private Optional<SagaRow> one(Connection c, String sql, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /**
   * Writes the row back if its version is still {@code r.version()} (and moves the version on);
   * false when another writer got there first. Waits for a writer that holds the row.
   */
  public boolean update(Connection c, SagaRow r, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_UPDATE)) {
      ps.setString(1, r.status().name());
      ps.setInt(2, r.stepIndex());
      ps.setInt(3, r.attempt());
      ps.setString(4, Json.write(r.pending()));
      ps.setString(5, r.data());
      dialect.bindInstant(ps, 6, r.wakeupAt());
      ps.setString(7, r.lastError());
      dialect.bindInstant(ps, 8, now);
      dialect.bindInstant(ps, 9, r.status().terminal() ? now : null);
      ps.setObject(10, r.id());
      ps.setLong(11, r.version());
      return ps.executeUpdate() == 1;
    }
  }

  /** Locks up to {@code limit} instances whose wake-up time has come, skipping held ones. */
  public List<UUID> lockDue(Connection c, Instant now, int limit) throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(SAGA_DUE)) {
      dialect.bindInstant(ps, 1, now);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(UUID.fromString(rs.getString(1)));
        }
      }
    }
    return ids;
  }

  public List<SagaRow> list(
      Connection c, String type, SagaStatus status, Instant startedBefore, int limit)
      throws SQLException {
    List<SagaRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(SAGA_LIST)) {
      ps.setString(1, type);
      ps.setString(2, status == null ? null : status.name());
      dialect.bindInstant(ps, 3, startedBefore);
      ps.setInt(4, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(read(rs));
        }
      }
    }
    return rows;
  }

  private static List<Integer> ints(String json) throws SQLException {
    try {
      return Json.mapper().readValue(json, new TypeReference<List<Integer>>() {});
    } catch (java.io.IOException e) {
      throw new SQLException("tandem_saga.pending is not a JSON list of step indexes: " + json, e);
    }
  }

  private SagaRow read(ResultSet rs) throws SQLException {
    return new SagaRow(
        UUID.fromString(rs.getString("saga_id")),
        rs.getString("saga_type"),
        SagaStatus.valueOf(rs.getString("status")),
        rs.getInt("step_index"),
        rs.getInt("attempt"),
        ints(rs.getString("pending")),
        rs.getString("data"),
        rs.getLong("version"),
        dialect.readInstant(rs, "wakeup_at"),
        dialect.readInstant(rs, "deadline_at"),
        rs.getString("last_error"),
        dialect.readInstant(rs, "started_at"),
        dialect.readInstant(rs, "updated_at"),
        dialect.readInstant(rs, "ended_at"));
  }
}
