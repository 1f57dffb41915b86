package io.tandem.saga.internal;

import io.tandem.core.TandemException;
import java.util.UUID;

/**
 * Another transaction moved the saga instance on between this one's read and its write. Thrown out
 * of the reply handler, it rolls back that reply's savepoint only; the inbox applies the reply
 * again alone, on the row as it now is.
 */
public final class SagaVersionConflict extends TandemException {
  private static final long serialVersionUID = 1L;

  public SagaVersionConflict(UUID sagaId, long version) {
    super(
        "saga "
            + sagaId
            + " changed under this transition (it read version "
            + version
            + "); the message is applied again on the new version");
  }
}
