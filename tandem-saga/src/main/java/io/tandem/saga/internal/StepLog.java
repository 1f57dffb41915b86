package io.tandem.saga.internal;

import io.tandem.core.EventHeaders;
import io.tandem.core.json.Json;
import io.tandem.jdbc.Dialect;
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

/**
 * The statements of {@code tandem_saga_step}, the log of every command an instance sent and the
 * reply it got, on the caller's connection and transaction.
 */
public final class StepLog {
  private static final String SAGA_STEP_NAME =
      """
      SELECT step FROM tandem_saga_step
       WHERE saga_id = ? AND step_index = ?
       ORDER BY seq DESC
       LIMIT 1
      """;

  private static final String SAGA_LAST_COMMAND_HEADERS =
      """
      SELECT o.headers FROM tandem_saga_step s
        JOIN tandem_outbox o ON o.event_id = s.command_id
       WHERE s.saga_id = ?
       ORDER BY s.seq DESC
       LIMIT 1
      """;

  private static final String SAGA_STEP_NEXT_SEQ =
      "SELECT COALESCE(MAX(seq), 0) + 1 FROM tandem_saga_step WHERE saga_id = ?";

  private static final String SAGA_STEP_INSERT =
      """
      INSERT INTO tandem_saga_step
          (saga_id, seq, step, step_index, kind, attempt, command_id, command_type, outcome,
           started_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?)
      """;

  private static final String SAGA_STEP_CLOSE =
      """
      UPDATE tandem_saga_step SET outcome = ?, reply_type = ?, reply = ?, ended_at = ?
       WHERE saga_id = ? AND command_id = ? AND outcome = 'PENDING'
      """;

  private static final String SAGA_STEP_CLOSE_PENDING =
      """
      UPDATE tandem_saga_step SET outcome = ?, ended_at = ?
       WHERE saga_id = ? AND step_index = ? AND kind = ? AND outcome = 'PENDING'
      """;

  private static final String SAGA_STEP_LIST =
      """
      SELECT seq, step, step_index, kind, attempt, command_id, command_type, outcome, reply_type,
             reply, started_at, ended_at
        FROM tandem_saga_step
       WHERE saga_id = ?
       ORDER BY seq
      """;

  /** One command to log: its place in the instance's log and what it was. */
  public record Entry(
      int seq,
      UUID sagaId,
      String step,
      int stepIndex,
      boolean compensation,
      int attempt,
      UUID commandId,
      String commandType) {}

  private final Dialect dialect;

  public StepLog(Dialect dialect) {
    this.dialect = dialect;
  }

  /** The next sequence number of an instance's log (its row must be held by this transaction). */
  public int nextSeq(Connection c, UUID sagaId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_STEP_NEXT_SEQ)) {
      ps.setObject(1, sagaId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  public void logCommand(Connection c, Entry e, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_STEP_INSERT)) {
      ps.setObject(1, e.sagaId());
      ps.setInt(2, e.seq());
      ps.setString(3, e.step());
      ps.setInt(4, e.stepIndex());
      ps.setString(5, kind(e.compensation()));
      ps.setInt(6, e.attempt());
      ps.setObject(7, e.commandId());
      ps.setString(8, e.commandType());
      dialect.bindInstant(ps, 9, now);
      ps.executeUpdate();
    }
  }

  /** Records the reply to a pending command; false when it was not pending (late, duplicate). */
  public boolean closeCommand(
      Connection c,
      UUID sagaId,
      UUID commandId,
      boolean succeeded,
      String replyType,
      String reply,
      Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_STEP_CLOSE)) {
      ps.setString(1, succeeded ? "SUCCEEDED" : "FAILED");
      ps.setString(2, replyType);
      ps.setString(3, reply);
      dialect.bindInstant(ps, 4, now);
      ps.setObject(5, sagaId);
      ps.setObject(6, commandId);
      return ps.executeUpdate() == 1;
    }
  }

  /** Closes a step's pending commands as timed out; returns how many were pending. */
  public int timeOutPending(
      Connection c, UUID sagaId, int stepIndex, boolean compensation, Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_STEP_CLOSE_PENDING)) {
      ps.setString(1, "TIMED_OUT");
      dialect.bindInstant(ps, 2, now);
      ps.setObject(3, sagaId);
      ps.setInt(4, stepIndex);
      ps.setString(5, kind(compensation));
      return ps.executeUpdate();
    }
  }

  /**
   * The W3C trace context ({@code traceparent}, {@code tracestate}) of the last command the
   * instance sent, while that command's outbox row is kept; empty when none or no longer there.
   */
  public Map<String, String> lastCommandTraceContext(Connection c, UUID sagaId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_LAST_COMMAND_HEADERS)) {
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

  /** The name of the step at {@code stepIndex} as the step log last recorded it. */
  public Optional<String> stepName(Connection c, UUID sagaId, int stepIndex) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_STEP_NAME)) {
      ps.setObject(1, sagaId);
      ps.setInt(2, stepIndex);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  public List<SagaStepRecord> steps(Connection c, UUID sagaId) throws SQLException {
    List<SagaStepRecord> steps = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(SAGA_STEP_LIST)) {
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

  private static String kind(boolean compensation) {
    return compensation ? "COMPENSATION" : "FORWARD";
  }
}
