package io.tandem.outbox;

import io.tandem.core.TandemException;
import java.sql.SQLException;

/**
 * The outbox already holds an event with the same {@code event_id}, or the same aggregate version.
 * The caller's transaction is unusable afterwards and must be rolled back.
 */
public final class OutboxConflictException extends TandemException {
  private static final long serialVersionUID = 1L;

  public OutboxConflictException(String message, SQLException cause) {
    super(message, cause);
  }
}
