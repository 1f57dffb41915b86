package io.tandem.outbox.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.outbox.OutboxRow;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Rebuilds the event of one row of the relay's read ({@link OutboxRow}, shared with the CDC relay),
 * or says why the row is not one. A row can break a rule the database did not check: appended by
 * plain SQL before the schema checked it, or one no CHECK can say (a payload number of more digits
 * than the JSON reader takes). Such a row must not stop the rows around it, so its failure is
 * returned, not thrown; only a failure of the database itself is thrown.
 */
final class ClaimedRowDecoder {
  private final Dialect dialect;

  ClaimedRowDecoder(Dialect dialect) {
    this.dialect = dialect;
  }

  /** The row at the cursor of {@code rs}: an event, or why it is not one. */
  ClaimedRow decode(ResultSet rs) throws SQLException {
    long rowId = rs.getLong("id");
    int partition = rs.getInt("partition_no");
    String eventId = rs.getString("event_id");
    String aggregateType = rs.getString("aggregate_type");
    String aggregateId = rs.getString("aggregate_id");
    long aggregateVersion = rs.getLong("aggregate_version");
    String reason;
    try {
      return new ClaimedEvent(
          rowId, partition, OutboxRow.read(rs, dialect).toEvent(), rs.getInt("attempts") + 1);
    } catch (RuntimeException e) {
      reason = OutboxRow.undecodableReason(e);
    }
    return new UndecodableRow(
        rowId, partition, eventId, aggregateType, aggregateId, aggregateVersion, reason);
  }
}
