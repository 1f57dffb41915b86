package io.tandem.drill;

import io.tandem.core.Event;
import io.tandem.inbox.PermanentHandlerException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The consumer's side effect and its delivery log, shared by the consumer role and the checker. */
final class DrillEffects {
  /** The marker in a payload that makes the consumer refuse the event while its rule is on. */
  static final String POISON = "\"poison\":true";

  /** The outbox stores payloads as jsonb, which re-spaces them on the way. */
  private static final java.util.regex.Pattern POISONED =
      java.util.regex.Pattern.compile("\"poison\"\\s*:\\s*true");

  private DrillEffects() {}

  /**
   * Applies {@code event} on {@code c} (inside the caller's transaction): one {@code drill_effects}
   * row. A poison event is refused with a permanent error while the rule {@code reject-poison} is
   * enabled.
   */
  static void apply(Connection c, Event event) throws SQLException {
    if (POISONED.matcher(event.payload()).find() && rejectsPoison(c)) {
      throw new PermanentHandlerException(
          "event " + event.eventId() + " is poison: the rule reject-poison refuses it");
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO drill_effects (event_id, aggregate_id, version) VALUES (?, ?, ?)")) {
      ps.setObject(1, event.eventId());
      ps.setString(2, event.aggregateId());
      ps.setLong(3, event.aggregateVersion());
      ps.executeUpdate();
    }
  }

  private static boolean rejectsPoison(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement("SELECT enabled FROM drill_rules WHERE name = 'reject-poison'");
        ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }
}
