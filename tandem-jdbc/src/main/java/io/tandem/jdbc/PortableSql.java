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

  static final String INBOX_EVENT_IDS = "SELECT event_id FROM tandem_inbox WHERE consumer = ?";

  static final String DEAD_LETTER_COUNT =
      """
      SELECT count(*) AS count FROM tandem_dead_letter WHERE consumer = ? AND status = 'DEAD'
      """;

  private PortableSql() {}
}
