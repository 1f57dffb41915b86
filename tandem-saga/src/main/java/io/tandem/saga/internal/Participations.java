package io.tandem.saga.internal;

import io.tandem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * The statements of {@code tandem_saga_participation}: what a participant did for each (saga,
 * step), on the caller's connection and transaction.
 */
public final class Participations {
  private static final String PARTICIPATION_LOCK =
      """
      SELECT state, reply_type, reply FROM tandem_saga_participation
       WHERE participant = ? AND saga_id = ? AND step = ?
         FOR UPDATE
      """;

  private static final String PARTICIPATION_COUNT =
      """
      SELECT count(*) FROM tandem_saga_participation WHERE participant = ?
      """;

  private static final String PARTICIPATION_INSERT =
      """
      INSERT INTO tandem_saga_participation
          (participant, saga_id, step, state, reply_type, reply, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """;

  private static final String PARTICIPATION_UPDATE =
      """
      UPDATE tandem_saga_participation SET state = ?, reply_type = ?, reply = ?, updated_at = ?
       WHERE participant = ? AND saga_id = ? AND step = ?
      """;

  /** A participant's record of one saga step. */
  public record Participation(String state, String replyType, String reply) {}

  private final Dialect dialect;

  public Participations(Dialect dialect) {
    this.dialect = dialect;
  }

  public Optional<Participation> lock(Connection c, String participant, UUID sagaId, String step)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PARTICIPATION_LOCK)) {
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

  /** How many saga steps {@code participant} recorded. */
  public long count(Connection c, String participant) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PARTICIPATION_COUNT)) {
      ps.setString(1, participant);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  public void save(
      Connection c,
      boolean exists,
      String participant,
      UUID sagaId,
      String step,
      Participation p,
      Instant now)
      throws SQLException {
    if (exists) {
      try (PreparedStatement ps = c.prepareStatement(PARTICIPATION_UPDATE)) {
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
    try (PreparedStatement ps = c.prepareStatement(PARTICIPATION_INSERT)) {
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
}
