package io.tandem.xa;

/**
 * The work of one two-phase transaction. Its checked exception type {@code X} passes through the
 * coordinator unchanged, after every branch was rolled back.
 *
 * @param <T> the result
 * @param <X> the checked exception it may throw ({@link java.sql.SQLException} for plain JDBC)
 */
@FunctionalInterface
public interface XaWork<T, X extends Exception> {
  T run(XaTransaction transaction) throws X;
}
