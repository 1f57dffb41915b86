package io.tandem.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The relay benchmark's ceiling: the cheapest correct raw SQL loop over the outbox — read a batch
 * with every column, mark it with one UPDATE, publish nowhere. This one loop stays raw SQL on
 * purpose (PostgreSQL's): it is the yardstick the relay, which goes through the library, is
 * measured against.
 */
final class RelayCeiling {
  private RelayCeiling() {}

  /** Drains {@code db}'s outbox in batches of {@code batch}; returns the rows marked. */
  static long drain(BenchDatabase db, int batch) throws SQLException {
    long done = 0;
    try (Connection c = db.pool.getConnection();
        PreparedStatement select =
            c.prepareStatement(
                "SELECT id, event_id, aggregate_type, aggregate_id, aggregate_version,"
                    + " event_type, schema_version, payload::text, headers::text, occurred_at"
                    + " FROM tandem_outbox WHERE published_at IS NULL AND quarantined_at IS NULL"
                    + " AND skipped_at IS NULL ORDER BY id LIMIT "
                    + batch);
        PreparedStatement mark =
            c.prepareStatement(
                "UPDATE tandem_outbox SET published_at = now() WHERE id = ANY (?)")) {
      while (true) {
        List<Long> ids = new ArrayList<>(batch);
        List<String> payloads = new ArrayList<>(batch); // read like a relay would
        try (ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            ids.add(rs.getLong(1));
            payloads.add(rs.getString(8));
            rs.getObject(2, UUID.class);
            rs.getString(9);
            rs.getTimestamp(10);
          }
        }
        if (ids.isEmpty()) {
          return done;
        }
        Array array = c.createArrayOf("bigint", ids.toArray());
        mark.setArray(1, array);
        mark.executeUpdate();
        done += ids.size();
      }
    }
  }
}
