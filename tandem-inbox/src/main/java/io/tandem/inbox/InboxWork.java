package io.tandem.inbox;

import io.tandem.core.Event;
import java.sql.Connection;

/**
 * A consumer's side effect, run inside the inbox's transaction on {@code connection}. It must use
 * that connection for every database change that belongs to the effect, and must not commit.
 *
 * @param <X> a checked exception the work may throw; it passes through {@link Inbox} unchanged
 */
@FunctionalInterface
public interface InboxWork<X extends Exception> {
  void apply(Connection connection, Event event) throws X;
}
