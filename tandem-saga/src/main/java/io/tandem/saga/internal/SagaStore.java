package io.tandem.saga.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import io.tandem.core.EventHeaders;
import io.tandem.core.json.Json;
import io.tandem.jdbc.Dialect;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.SagaStepRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** The saga tables' statements, on the caller's connection and transaction. */
public final class SagaStore {
  /** A participant's record of one saga step. */
  public record Participation(String state, String replyType, String reply) {}

  private final Dialect dialect;

  public SagaStore(Dialect dialect) {
    this.dialect = dialect;
  }

  public void insert(Connection c, SagaRow r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaInsert())) {
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

  public Optional<SagaRow> lock(Connection c, UUID id) throws SQLException {
    return one(c, dialect.sagaLock(), id);
  }

  public Optional<SagaRow> get(Connection c, UUID id) throws SQLException {
    return one(c, dialect.sagaGet(), id);
  }

  private Optional<SagaRow> one(Connection c, String sql, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /** Writes the row back if its version is unchanged; false when another writer got there. */
  public boolean update(Connection c, SagaRow r, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaUpdate())) {
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

  /** Locks one instance whose wake-up time has come, skipping instances others hold. */
  public Optional<UUID> lockDue(Connection c, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaDue())) {
      dialect.bindInstant(ps, 1, now);
      ps.setInt(2, 1);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(UUID.fromString(rs.getString(1))) : Optional.empty();
      }
    }
  }

  public List<SagaRow> list(
      Connection c, String type, SagaStatus status, Instant startedBefore, int limit)
      throws SQLException {
    List<SagaRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaList())) {
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

  public List<UUID> finished(Connection c, Instant endedBefore, int limit) throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaFinished())) {
      dialect.bindInstant(ps, 1, endedBefore);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(UUID.fromString(rs.getString(1)));
        }
      }
    }
    return ids;
  }

  /** How many instances ended (completed or compensated) before {@code endedBefore}. */
  public long countFinished(Connection c, Instant endedBefore) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaFinishedCount())) {
      dialect.bindInstant(ps, 1, endedBefore);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Deletes an ended instance and its step log; false when it is not ended. */
  public boolean delete(Connection c, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaDelete())) {
      ps.setObject(1, id);
      if (ps.executeUpdate() == 0) {
        return false;
      }
    }
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaStepDelete())) {
      ps.setObject(1, id);
      ps.executeUpdate();
    }
    return true;
  }

  /** The next step-log sequence number of an instance (its row must be locked). */
  public int nextSeq(Connection c, UUID sagaId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaStepNextSeq())) {
      ps.setObject(1, sagaId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  public void logCommand(
      Connection c,
      int seq,
      UUID sagaId,
      String step,
      int stepIndex,
      boolean compensation,
      int attempt,
      UUID commandId,
      String commandType,
      Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaStepInsert())) {
      ps.setObject(1, sagaId);
      ps.setInt(2, seq);
      ps.setString(3, step);
      ps.setInt(4, stepIndex);
      ps.setString(5, compensation ? "COMPENSATION" : "FORWARD");
      ps.setInt(6, attempt);
      ps.setObject(7, commandId);
      ps.setString(8, commandType);
      dialect.bindInstant(ps, 9, now);
      ps.executeUpdate();
    }
  }

  /** Records the reply to a pending command; false when it was not pending (late, duplicate). */
  public boolean closeCommand(
      Connection c,
      UUID sagaId,
      UUID commandId,
      String outcome,
      String replyType,
      String reply,
      Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaStepClose())) {
      ps.setString(1, outcome);
      ps.setString(2, replyType);
      ps.setString(3, reply);
      dialect.bindInstant(ps, 4, now);
      ps.setObject(5, sagaId);
      ps.setObject(6, commandId);
      return ps.executeUpdate() == 1;
    }
  }

  /** Closes pending commands of a step; returns how many were pending. */
  public int closePending(
      Connection c, UUID sagaId, int stepIndex, boolean compensation, String outcome, Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaStepClosePending())) {
      ps.setString(1, outcome);
      dialect.bindInstant(ps, 2, now);
      ps.setObject(3, sagaId);
      ps.setInt(4, stepIndex);
      ps.setString(5, compensation ? "COMPENSATION" : "FORWARD");
      return ps.executeUpdate();
    }
  }

  /** The name of the step at {@code stepIndex} as the step log last recorded it. */
  /**
   * The W3C trace context ({@code traceparent}, {@code tracestate}) of the last command the
   * instance sent, while that command's outbox row is kept; empty when none or no longer there.
   */
  public Map<String, String> lastCommandTraceContext(Connection c, UUID sagaId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaLastCommandHeaders())) {
      ps.setObject(1, sagaId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Map.of();
        }
        Map<String, String> headers = Json.readStringMap(rs.getString(1));
        Map<String, String> context = new LinkedHashMap<>();
        for (String key : List.of(EventHeaders.TRACEPARENT, EventHeaders.TRACESTATE)) {
          if (headers.containsKey(key)) {
            context.put(key, headers.get(key));
          }
        }
        return context;
      }
    }
  }

  public Optional<String> stepName(Connection c, UUID sagaId, int stepIndex) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaStepName())) {
      ps.setObject(1, sagaId);
      ps.setInt(2, stepIndex);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  public List<SagaStepRecord> steps(Connection c, UUID sagaId) throws SQLException {
    List<SagaStepRecord> steps = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.sagaStepList())) {
      ps.setObject(1, sagaId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          steps.add(
              new SagaStepRecord(
                  rs.getInt("seq"),
                  rs.getString("step"),
                  rs.getInt("step_index"),
                  "COMPENSATION".equals(rs.getString("kind")),
                  rs.getInt("attempt"),
                  UUID.fromString(rs.getString("command_id")),
                  rs.getString("command_type"),
                  rs.getString("outcome"),
                  Optional.ofNullable(rs.getString("reply_type")),
                  Optional.ofNullable(rs.getString("reply")),
                  dialect.readInstant(rs, "started_at"),
                  Optional.ofNullable(dialect.readInstant(rs, "ended_at"))));
        }
      }
    }
    return steps;
  }

  public Optional<Participation> lockParticipation(
      Connection c, String participant, UUID sagaId, String step) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.participationLock())) {
      ps.setString(1, participant);
      ps.setObject(2, sagaId);
      ps.setString(3, step);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(new Participation(rs.getString(1), rs.getString(2), rs.getString(3)))
            : Optional.empty();
      }
    }
  }

  public void saveParticipation(
      Connection c,
      boolean exists,
      String participant,
      UUID sagaId,
      String step,
      Participation p,
      Instant now)
      throws SQLException {
    if (exists) {
      try (PreparedStatement ps = c.prepareStatement(dialect.participationUpdate())) {
        ps.setString(1, p.state());
        ps.setString(2, p.replyType());
        ps.setString(3, p.reply());
        dialect.bindInstant(ps, 4, now);
        ps.setString(5, participant);
        ps.setObject(6, sagaId);
        ps.setString(7, step);
        ps.executeUpdate();
      }
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(dialect.participationInsert())) {
      ps.setString(1, participant);
      ps.setObject(2, sagaId);
      ps.setString(3, step);
      ps.setString(4, p.state());
      ps.setString(5, p.replyType());
      ps.setString(6, p.reply());
      dialect.bindInstant(ps, 7, now);
      ps.executeUpdate();
    }
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
