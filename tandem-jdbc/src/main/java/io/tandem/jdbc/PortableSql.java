package io.tandem.jdbc;

/** Statements both database families run as written; each dialect returns them as its own. */
final class PortableSql {
  static final String POSITION_LOCK =
      """
      SELECT last_version FROM tandem_inbox_position
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?
         FOR UPDATE
      """;

  static final String PARKED_FIND =
      """
      SELECT event_id, event_type, schema_version, payload, headers, occurred_at, origin
        FROM tandem_inbox_parked
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND aggregate_version = ?
      """;

  static final String PARKED_DELETE =
      """
      DELETE FROM tandem_inbox_parked
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND aggregate_version <= ?
      """;

  static final String POSITION_ADVANCE =
      """
      UPDATE tandem_inbox_position SET last_version = ?
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND last_version = ?
      """;

  static final String PARKED_READY =
      """
      SELECT p.aggregate_type, p.aggregate_id
        FROM tandem_inbox_parked p
        JOIN tandem_inbox_position pos
          ON pos.consumer = p.consumer AND pos.aggregate_type = p.aggregate_type
         AND pos.aggregate_id = p.aggregate_id
       WHERE p.consumer = ? AND p.aggregate_version <= pos.last_version + 1
       GROUP BY p.aggregate_type, p.aggregate_id
       LIMIT ?
      """;

  static final String DEAD_LETTER_COLUMNS =
      """
      SELECT id, consumer, status, reason_class, reason, attempts, origin, raw_headers, raw_body,
             event_id, aggregate_type, aggregate_id, aggregate_version, event_type, event_json, dead_at,
             resolved_at
        FROM tandem_dead_letter
      """;

  static final String DEAD_LETTER_LIST =
      DEAD_LETTER_COLUMNS
          + """
           WHERE consumer = ? AND status = ? AND id > ?
           ORDER BY id
           LIMIT ?
          """;

  static final String DEAD_LETTER_LOCK =
      DEAD_LETTER_COLUMNS
          + """
           WHERE id = ?
             FOR UPDATE
          """;

  // Only a dead letter above the position holds the aggregate back: one at or below it (a
  // VERSION_CONFLICT) does not.
  static final String DEAD_LETTER_BLOCKING =
      """
      SELECT id, aggregate_version, reason FROM tandem_dead_letter d
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND status = 'DEAD'
         AND aggregate_version > COALESCE(
             (SELECT pos.last_version FROM tandem_inbox_position pos
               WHERE pos.consumer = d.consumer AND pos.aggregate_type = d.aggregate_type
                 AND pos.aggregate_id = d.aggregate_id), 0)
       ORDER BY aggregate_version, id
       LIMIT 1
      """;

  static final String VERSION_PROBE =
      """
      SELECT (SELECT count(*) FROM tandem_inbox WHERE consumer = ? AND event_id = ?) AS seen,
             (SELECT start_version FROM tandem_inbox_position
               WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?) AS start_version,
             (SELECT max(id) FROM tandem_inbox_advance
               WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?
                 AND from_version < ? AND to_version >= ?) AS advance_id
      """;

  static final String ADVANCE_INSERT =
      """
      INSERT INTO tandem_inbox_advance
          (consumer, aggregate_type, aggregate_id, from_version, to_version, reason, advanced_by)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """;

  static final String PARKED_LOWEST =
      """
      SELECT min(aggregate_version) AS lowest FROM tandem_inbox_parked
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ?
      """;

  static final String ADVANCE_LIST =
      """
      SELECT id, consumer, aggregate_type, aggregate_id, from_version, to_version, reason,
             advanced_by, advanced_at
        FROM tandem_inbox_advance
       WHERE consumer = ? AND id > ?
       ORDER BY id
       LIMIT ?
      """;

  static final String OPS_EVENT_IDS = "SELECT event_id FROM tandem_outbox ORDER BY id";

  static final String INBOX_EVENT_IDS = "SELECT event_id FROM tandem_inbox WHERE consumer = ?";

  static final String DEAD_LETTER_COUNT =
      """
      SELECT count(*) AS count FROM tandem_dead_letter WHERE consumer = ? AND status = 'DEAD'
      """;

  // ---- sagas --------------------------------------------------------------------------------

  static final String SAGA_COLUMNS =
      """
      SELECT saga_id, saga_type, status, step_index, attempt, pending, data, version, wakeup_at,
             deadline_at, last_error, started_at, updated_at, ended_at
        FROM tandem_saga
      """;

  static final String SAGA_INSERT =
      """
      INSERT INTO tandem_saga
          (saga_id, saga_type, status, step_index, attempt, pending, data, version, wakeup_at,
           deadline_at, started_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
      """;

  static final String SAGA_LOCK = SAGA_COLUMNS + " WHERE saga_id = ? FOR UPDATE";

  static final String SAGA_GET = SAGA_COLUMNS + " WHERE saga_id = ?";

  static final String SAGA_UPDATE =
      """
      UPDATE tandem_saga
         SET status = ?, step_index = ?, attempt = ?, pending = ?, data = ?, version = version + 1,
             wakeup_at = ?, last_error = ?, updated_at = ?, ended_at = ?
       WHERE saga_id = ? AND version = ?
      """;

  static final String SAGA_DUE =
      """
      SELECT saga_id FROM tandem_saga
       WHERE wakeup_at <= ?
       ORDER BY wakeup_at
       LIMIT ?
         FOR UPDATE SKIP LOCKED
      """;

  static final String SAGA_LIST =
      SAGA_COLUMNS
          + """
           WHERE saga_type = COALESCE(?, saga_type) AND status = COALESCE(?, status)
             AND started_at <= ?
           ORDER BY started_at, saga_id
           LIMIT ?
          """;

  static final String SAGA_FINISHED =
      """
      SELECT saga_id FROM tandem_saga
       WHERE status IN ('COMPLETED', 'COMPENSATED') AND ended_at < ?
       ORDER BY ended_at
       LIMIT ?
      """;

  static final String SAGA_FINISHED_COUNT =
      """
      SELECT count(*) FROM tandem_saga
       WHERE status IN ('COMPLETED', 'COMPENSATED') AND ended_at < ?
      """;

  static final String SAGA_COUNTS =
      """
      SELECT saga_type, status, count(*) AS instances, min(updated_at) AS oldest_update
        FROM tandem_saga
       GROUP BY saga_type, status
      """;

  static final String DASHBOARD_ACTION_INSERT =
      """
      INSERT INTO tandem_dashboard_action (operator, remote, action, target, outcome, detail)
      VALUES (?, ?, ?, ?, ?, ?)
      """;

  static final String DASHBOARD_ACTION_LIST =
      """
      SELECT id, acted_at, operator, remote, action, target, outcome, detail
        FROM tandem_dashboard_action
       ORDER BY id DESC
       LIMIT ?
      """;

  static final String SAGA_STEP_NAME =
      """
      SELECT step FROM tandem_saga_step
       WHERE saga_id = ? AND step_index = ?
       ORDER BY seq DESC
       LIMIT 1
      """;

  static final String SAGA_LAST_COMMAND_HEADERS =
      """
      SELECT o.headers FROM tandem_saga_step s
        JOIN tandem_outbox o ON o.event_id = s.command_id
       WHERE s.saga_id = ?
       ORDER BY s.seq DESC
       LIMIT 1
      """;

  static final String SAGA_DELETE =
      "DELETE FROM tandem_saga WHERE saga_id = ? AND status IN ('COMPLETED', 'COMPENSATED')";

  static final String SAGA_STEP_DELETE = "DELETE FROM tandem_saga_step WHERE saga_id = ?";

  static final String SAGA_STEP_NEXT_SEQ =
      "SELECT COALESCE(MAX(seq), 0) + 1 FROM tandem_saga_step WHERE saga_id = ?";

  static final String SAGA_STEP_INSERT =
      """
      INSERT INTO tandem_saga_step
          (saga_id, seq, step, step_index, kind, attempt, command_id, command_type, outcome,
           started_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?)
      """;

  static final String SAGA_STEP_CLOSE =
      """
      UPDATE tandem_saga_step SET outcome = ?, reply_type = ?, reply = ?, ended_at = ?
       WHERE saga_id = ? AND command_id = ? AND outcome = 'PENDING'
      """;

  static final String SAGA_STEP_CLOSE_PENDING =
      """
      UPDATE tandem_saga_step SET outcome = ?, ended_at = ?
       WHERE saga_id = ? AND step_index = ? AND kind = ? AND outcome = 'PENDING'
      """;

  static final String SAGA_STEP_LIST =
      """
      SELECT seq, step, step_index, kind, attempt, command_id, command_type, outcome, reply_type,
             reply, started_at, ended_at
        FROM tandem_saga_step
       WHERE saga_id = ?
       ORDER BY seq
      """;

  static final String PARTICIPATION_LOCK =
      """
      SELECT state, reply_type, reply FROM tandem_saga_participation
       WHERE participant = ? AND saga_id = ? AND step = ?
         FOR UPDATE
      """;

  static final String PARTICIPATION_COUNT =
      """
      SELECT count(*) FROM tandem_saga_participation WHERE participant = ?
      """;

  static final String PARTICIPATION_INSERT =
      """
      INSERT INTO tandem_saga_participation
          (participant, saga_id, step, state, reply_type, reply, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """;

  static final String PARTICIPATION_UPDATE =
      """
      UPDATE tandem_saga_participation SET state = ?, reply_type = ?, reply = ?, updated_at = ?
       WHERE participant = ? AND saga_id = ? AND step = ?
      """;

  // ---- saga trail ---------------------------------------------------------------------------

  static final String TRAIL_CONSUMERS =
      """
      SELECT consumer, processed_at FROM tandem_inbox
       WHERE event_id = ?
       ORDER BY processed_at, consumer
      """;

  private PortableSql() {}
}
