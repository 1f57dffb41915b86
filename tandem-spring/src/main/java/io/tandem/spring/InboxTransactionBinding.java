package io.tandem.spring;

import java.sql.Connection;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes the inbox's connection the Spring-managed transaction of a {@code DataSource} for the
 * length of one call: {@code DataSourceUtils.getConnection}, {@code JdbcTemplate}, {@link
 * TandemOutbox} and a {@code @Transactional(propagation = REQUIRED)} method on that {@code
 * DataSource} all see it as the current transaction, so their work commits or rolls back with the
 * inbox record. Nothing here commits: the inbox does.
 */
final class InboxTransactionBinding {
  private InboxTransactionBinding() {}

  /** A holder that reports an active transaction, so a REQUIRED method joins it. */
  private static final class InboxConnectionHolder extends ConnectionHolder {
    InboxConnectionHolder(Connection connection) {
      super(connection, true);
      setSynchronizedWithTransaction(true);
      setTransactionActive(true);
    }
  }

  static <T> T call(DataSource dataSource, Connection connection, Callable<T> work)
      throws Exception {
    if (TransactionSynchronizationManager.hasResource(dataSource)) {
      throw new IllegalStateException(
          "a Spring transaction on the inbox's DataSource is already bound to this thread: an"
              + " inbox handler runs on the consumer's own thread, never inside another"
              + " transaction");
    }
    boolean wasActive = TransactionSynchronizationManager.isActualTransactionActive();
    TransactionSynchronizationManager.bindResource(
        dataSource, new InboxConnectionHolder(connection));
    TransactionSynchronizationManager.setActualTransactionActive(true);
    try {
      return work.call();
    } finally {
      TransactionSynchronizationManager.setActualTransactionActive(wasActive);
      TransactionSynchronizationManager.unbindResource(dataSource);
    }
  }
}
