package io.tandem.jdbc;

import java.sql.Connection;

/**
 * Work that runs inside a local transaction on the given connection. The caller's checked exception
 * type {@code X} passes through unchanged.
 *
 * @param <T> the result
 * @param <X> the checked exception the work may throw (use {@link java.sql.SQLException} for plain
 *     JDBC work, {@link RuntimeException} for none)
 */
@FunctionalInterface
public interface TransactionWork<T, X extends Exception> {
  T execute(Connection connection) throws X;
}
