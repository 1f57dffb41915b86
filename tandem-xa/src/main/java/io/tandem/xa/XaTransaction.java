package io.tandem.xa;

import java.sql.Connection;

/**
 * One two-phase transaction while its work runs: {@link #connection(String)} opens the branch on a
 * participant on first use and returns the same connection afterwards. Do not commit, roll back or
 * close these connections, nor change their auto-commit: the coordinator does it for every branch
 * at once.
 *
 * <p>Not thread-safe: the work runs on one thread.
 */
public interface XaTransaction {
  /** The transaction's id (the gtrid of its branches). */
  GlobalTransactionId id();

  /**
   * The connection of the branch on {@code participant}, started on the first call.
   *
   * @throws IllegalArgumentException when the coordinator has no such participant
   * @throws io.tandem.core.TandemException when the branch cannot be started
   */
  Connection connection(String participant);
}
