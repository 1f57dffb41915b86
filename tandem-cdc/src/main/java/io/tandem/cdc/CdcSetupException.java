package io.tandem.cdc;

import io.tandem.core.TandemException;

/**
 * The database is not set up for the CDC relay: {@code wal_level}, a privilege, the replication
 * slot or the publication. The message says what is wrong, with which value, and what to change;
 * the relay does not start.
 */
public final class CdcSetupException extends TandemException {
  private static final long serialVersionUID = 1L;

  public CdcSetupException(String message) {
    super(message);
  }

  public CdcSetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
