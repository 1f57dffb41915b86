package io.tandem.saga.internal;

import io.tandem.saga.SagaDefinition;
import io.tandem.saga.internal.Transition.Send;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link Transition} in the caller's transaction: the row first (inserted for a start,
 * else written back only if its version is the one read, which also takes the row's lock), then the
 * commands. Thread-safe.
 */
public final class TransitionWriter {
  private static final Logger LOG = LoggerFactory.getLogger(TransitionWriter.class);

  private final SagaRows rows;
  private final CommandWriter commands;
  private final OrchestratorMeters meters;

  public TransitionWriter(SagaRows rows, CommandWriter commands, OrchestratorMeters meters) {
    this.rows = rows;
    this.commands = commands;
    this.meters = meters;
  }

  /**
   * Writes {@code t}; false when it changes nothing (a stale reply).
   *
   * @throws SagaVersionConflict when another transaction moved the instance on since it was read
   */
  public boolean apply(Connection conn, SagaDefinition<?> def, Transition t, Instant now)
      throws SQLException {
    SagaRow next = t.next();
    if (t.note() != null) {
      LOG.info("saga {} {}: {}", next.type(), next.id(), t.note());
    }
    if (!t.changed()) {
      return false;
    }
    if (t.from() == null) {
      rows.insert(conn, next);
      meters.started(next.type());
    } else if (!rows.update(conn, next, now)) {
      meters.versionConflict(next.type());
      throw new SagaVersionConflict(next.id(), next.version());
    }
    for (Send send : t.sends()) {
      commands.send(conn, next, def, send, now);
    }
    if (t.from() != null && t.statusChanged()) {
      meters.statusChanged(next, now);
      LOG.debug("saga {} {}", next.id(), next.status());
    }
    return true;
  }
}
