package io.tandem.inbox.internal;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/** Tells a database that cannot be reached apart from a handler that fails. */
public final class Failures {
  private Failures() {}

  /**
   * Whether {@code failure} (or a cause) says the database could not be reached or went away: a
   * connection failure (SQLState class 08), a server shutting down or starting (PostgreSQL 57P01,
   * 57P02, 57P03). Such failures say nothing about the message, so they do not use up its attempts.
   */
  public static boolean databaseUnavailable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException
          || t instanceof SQLNonTransientConnectionException
          || t instanceof SQLRecoverableException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08")
            || state.equals("57P01")
            || state.equals("57P02")
            || state.equals("57P03")) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Whether {@code failure} (or a cause) is the database resolving a conflict between concurrent
   * transactions — a deadlock or a serialization failure (SQLState class 40, MariaDB error 1213,
   * lock wait timeout 1205): nothing is wrong with the message, the transaction just runs again.
   */
  public static boolean transientConflict(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLTransactionRollbackException) {
        return true;
      }
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        if ((state != null && state.startsWith("40"))
            || sql.getErrorCode() == 1213
            || sql.getErrorCode() == 1205) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Whether {@code failure} says the transaction was aborted by an earlier failed statement
   * (PostgreSQL 25P02): a handler that caught its own SQL error and went on, so the consumer's next
   * statement fails for the handler's sake.
   */
  public static boolean abortedByEarlierStatement(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && "25P02".equals(sql.getSQLState())) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** A one-line description of a failure for a dead letter or a log line. */
  public static String describe(Throwable failure) {
    StringBuilder s = new StringBuilder();
    for (Throwable t = failure; t != null && s.length() < 2000; t = t.getCause()) {
      if (s.length() > 0) {
        s.append(" <- ");
      }
      s.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
      if (t.getCause() == t) {
        break;
      }
    }
    return s.toString();
  }
}
