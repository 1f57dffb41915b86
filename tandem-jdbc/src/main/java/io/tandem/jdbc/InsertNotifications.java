package io.tandem.jdbc;

/**
 * A subscription to the database's notifications of committed outbox inserts (see {@link
 * Dialect#listenForOutboxInserts}). A busy relay switches it off: while every read finds rows it
 * looks again at once anyway, and each notification would only cost the database and the relay a
 * wake-up. Switched on again, it calls back once as soon as it listens, so that rows committed
 * while it was off are looked for.
 */
public interface InsertNotifications extends AutoCloseable {
  /**
   * Asks to receive notifications ({@code true}, the initial state) or not. Takes effect
   * asynchronously, on the listener's own connection; a notification may still arrive shortly after
   * switching off.
   */
  void setListening(boolean listening);

  /** Whether the listener is asked to listen now. */
  boolean isListening();

  /** Stops listening and releases the connection. */
  @Override
  void close();
}
