package io.tandem.inbox;

import io.tandem.core.Event;
import java.sql.Connection;
import java.util.List;

/**
 * A consumer's side effect for several events at once (a bulk write), run inside the batch's
 * transaction on {@code connection}; registered with {@link InboxProcessor.Builder#onBatch}. The
 * events are new to the consumer, of one event type, and in per-aggregate version order. It must
 * use that connection for every database change that belongs to the effect, and must not commit.
 *
 * <p>If it throws, the batch's transaction is rolled back and runs again with a savepoint per
 * handler call, in which this handler is not called with these events together: each event is
 * applied again alone (a call with a list of one), so that only the event that fails takes the
 * retry and dead-letter path.
 */
@FunctionalInterface
public interface InboxBatchWork {
  void apply(Connection connection, List<Event> events) throws Exception;
}
