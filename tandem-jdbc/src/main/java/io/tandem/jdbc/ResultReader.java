package io.tandem.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads the rows of a query that a typed statement ran and bound itself, such as {@link
 * OutboxStatements#claim}. The reader is called once with the open result set, positioned before
 * the first row, and returns what it made of the rows; the statement closes the result set after.
 *
 * @param <T> what the reader returns
 */
@FunctionalInterface
public interface ResultReader<T> {
  /** Reads the rows; called once, on the caller's thread. */
  T read(ResultSet rows) throws SQLException;
}
