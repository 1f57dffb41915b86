package io.tandem.jdbc;

import io.tandem.core.TandemException;
import java.sql.SQLException;

/** A database operation of Tandem's own failed; the cause is the driver's {@link SQLException}. */
public class JdbcException extends TandemException {
  private static final long serialVersionUID = 1L;

  public JdbcException(String message, SQLException cause) {
    super(message + ": " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")", cause);
  }

  /** The SQLState of the driver's exception, e.g. {@code 23505} for a unique violation. */
  public String sqlState() {
    return ((SQLException) getCause()).getSQLState();
  }
}
