package io.tandem.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalInt;
import javax.sql.DataSource;

/**
 * Runs work in one local JDBC transaction: commit when it returns, roll back when it throws.
 *
 * <pre>{@code
 * long id = Transactions.inTransaction(dataSource, conn -> {
 *   // business update ...
 *   outbox.append(conn, event);
 *   return orderId;
 * });
 * }</pre>
 *
 * <p>The connection's auto-commit flag is restored before it is closed (returned to its pool).
 */
public final class Transactions {
  private Transactions() {}

  /**
   * Opens a connection, runs {@code work} in a transaction and commits.
   *
   * @throws X whatever {@code work} throws, unchanged, after the rollback
   * @throws JdbcException when connecting, committing or rolling back fails
   */
  public static <T, X extends Exception> T inTransaction(
      DataSource dataSource, TransactionWork<T, X> work) throws X {
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      throw new JdbcException("cannot obtain a connection", e);
    }
    try {
      return inTransaction(connection, work);
    } finally {
      try {
        connection.close();
      } catch (SQLException e) {
        // The transaction already committed or rolled back; a failed close changes neither.
      }
    }
  }

  /**
   * Like {@link #inTransaction(DataSource, TransactionWork)}, at the given isolation level (e.g.
   * {@link Connection#TRANSACTION_READ_COMMITTED}) when one is given, else at the connection's own;
   * a changed level is restored before the connection is closed. Tandem's relay passes {@link
   * Dialect#relayIsolation()}.
   */
  public static <T, X extends Exception> T inTransaction(
      DataSource dataSource, OptionalInt isolation, TransactionWork<T, X> work) throws X {
    if (isolation.isEmpty()) {
      return inTransaction(dataSource, work);
    }
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      throw new JdbcException("cannot obtain a connection", e);
    }
    try {
      int previous = setIsolation(connection, isolation.getAsInt());
      try {
        return inTransaction(connection, work);
      } finally {
        setIsolation(connection, previous);
      }
    } finally {
      try {
        connection.close();
      } catch (SQLException e) {
        // The transaction already committed or rolled back; a failed close changes neither.
      }
    }
  }

  /** Runs {@code work} in a transaction on an open connection that is in auto-commit mode. */
  public static <T, X extends Exception> T inTransaction(
      Connection connection, TransactionWork<T, X> work) throws X {
    boolean autoCommit = setAutoCommit(connection, false);
    try {
      T result = work.execute(connection);
      commit(connection);
      return result;
    } catch (Throwable t) {
      rollback(connection, t);
      throw t;
    } finally {
      setAutoCommit(connection, autoCommit);
    }
  }

  private static boolean setAutoCommit(Connection connection, boolean value) {
    try {
      boolean previous = connection.getAutoCommit();
      if (previous != value) {
        connection.setAutoCommit(value);
      }
      return previous;
    } catch (SQLException e) {
      throw new JdbcException("cannot set auto-commit to " + value, e);
    }
  }

  private static int setIsolation(Connection connection, int level) {
    try {
      int previous = connection.getTransactionIsolation();
      if (previous != level) {
        connection.setTransactionIsolation(level);
      }
      return previous;
    } catch (SQLException e) {
      throw new JdbcException("cannot set the transaction isolation level to " + level, e);
    }
  }

  private static void commit(Connection connection) {
    try {
      connection.commit();
    } catch (SQLException e) {
      throw new JdbcException("commit failed; the transaction's outcome is unknown", e);
    }
  }

  private static void rollback(Connection connection, Throwable cause) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }
}
