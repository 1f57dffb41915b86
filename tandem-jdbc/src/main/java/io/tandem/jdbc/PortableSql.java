package io.tandem.jdbc;

/** Statements both database families run as written; each dialect returns them as its own. */
final class PortableSql {
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

  static final String DEAD_LETTER_BLOCKING =
      """
      SELECT id, aggregate_version, reason FROM tandem_dead_letter
       WHERE consumer = ? AND aggregate_type = ? AND aggregate_id = ? AND status = 'DEAD'
       ORDER BY aggregate_version, id
       LIMIT 1
      """;

  static final String DEAD_LETTER_COUNT =
      """
      SELECT count(*) AS count FROM tandem_dead_letter WHERE consumer = ? AND status = 'DEAD'
      """;

  private PortableSql() {}
}
