package io.tandem.saga.internal;

import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The retention statements: ended instances found, counted and deleted with their step log. */
public final class EndedSagas {
  private static final String SAGA_FINISHED =
      """
      SELECT saga_id FROM tandem_saga
       WHERE status IN ('COMPLETED', 'COMPENSATED') AND ended_at < ?
       ORDER BY ended_at
       LIMIT ?
      """;

  private static final String SAGA_FINISHED_COUNT =
      """
      SELECT count(*) FROM tandem_saga
       WHERE status IN ('COMPLETED', 'COMPENSATED') AND ended_at < ?
      """;

  private static final String SAGA_DELETE =
      "DELETE FROM tandem_saga WHERE saga_id = ? AND status IN ('COMPLETED', 'COMPENSATED')";

  private static final String SAGA_STEP_DELETE = "DELETE FROM tandem_saga_step WHERE saga_id = ?";

  private final Dialect dialect;

  public EndedSagas(Dialect dialect) {
    this.dialect = dialect;
  }

  public List<UUID> finished(Connection c, Instant endedBefore, int limit) throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(SAGA_FINISHED)) {
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
    try (PreparedStatement ps = c.prepareStatement(SAGA_FINISHED_COUNT)) {
      dialect.bindInstant(ps, 1, endedBefore);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Deletes an ended instance and its step log; false when it is not ended. */
  public boolean delete(Connection c, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAGA_DELETE)) {
      ps.setObject(1, id);
      if (ps.executeUpdate() == 0) {
        return false;
      }
    }
    try (PreparedStatement ps = c.prepareStatement(SAGA_STEP_DELETE)) {
      ps.setObject(1, id);
      ps.executeUpdate();
    }
    return true;
  }
}
