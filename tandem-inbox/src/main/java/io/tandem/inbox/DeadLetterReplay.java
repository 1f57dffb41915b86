package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.TandemException;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.internal.DeadLetterStore;
import io.tandem.inbox.internal.DeadLetterStore.StoredDeadLetter;
import io.tandem.inbox.internal.EventJson;
import io.tandem.inbox.internal.PositionStore;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.TransactionWork;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * The repairs of a dead letter that need the consumer's handlers (the others are {@link
 * InboxOperations}'): replay it through the normal path, or discard it. The dead letter's status is
 * written here, in its own transaction after the replay's committed — never by settling a message.
 * Thread-safe.
 */
final class DeadLetterReplay {
  private final ConsumerParts parts;
  private final Applier applier;
  private final DeadLetterStore letters;
  private final PositionStore positions;

  DeadLetterReplay(ConsumerParts parts, Applier applier) {
    this.parts = parts;
    this.applier = applier;
    this.letters = new DeadLetterStore(parts.dialect());
    this.positions = new PositionStore(parts.dialect());
  }

  /** See {@link InboxProcessor#replay}. */
  Outcome replay(long id) {
    StoredDeadLetter stored = open(id);
    if (stored.eventJson().isEmpty()) {
      throw new TandemException(
          "dead letter #"
              + id
              + " holds a message that is not a valid Tandem event ("
              + stored.letter().reason()
              + "); there is no event to replay. Publish a corrected event, then discard this"
              + " one.");
    }
    Event event = EventJson.read(stored.eventJson().get());
    Decoded d = new Decoded(new Replayed(stored.letter(), id), event, null);
    Outcome outcome = applier.apply(d, () -> false, 0);
    if (outcome != Outcome.ABANDONED) {
      // a crash before this leaves it DEAD: replayed again, it is a duplicate, then resolved
      read(conn -> letters.resolveDeadLetter(conn, id, DeadLetterStatus.REPLAYED));
    }
    return outcome;
  }

  /** See {@link InboxProcessor#discard}. */
  void discard(long id) {
    StoredDeadLetter stored = open(id);
    Optional<Event> event = stored.eventJson().map(EventJson::read);
    String consumer = parts.consumer();
    read(
        conn -> {
          if (!letters.resolveDeadLetter(conn, id, DeadLetterStatus.DISCARDED)) {
            throw new IllegalStateException("dead letter #" + id + " is no longer DEAD");
          }
          if (parts.ordered() && event.isPresent()) {
            Event e = event.get();
            long last =
                positions.lockPosition(conn, consumer, e.aggregateType(), e.aggregateId(), 0);
            if (e.aggregateVersion() == last + 1) {
              positions.recordProcessed(conn, consumer, e);
              positions.updatePosition(conn, consumer, e);
            }
          }
          return null;
        });
    event.ifPresent(e -> applier.drain(e.aggregateType(), e.aggregateId(), () -> false));
  }

  private StoredDeadLetter open(long id) {
    String consumer = parts.consumer();
    Optional<StoredDeadLetter> stored = read(conn -> letters.lockDeadLetter(conn, id));
    if (stored.isEmpty() || !stored.get().letter().consumer().equals(consumer)) {
      throw new IllegalArgumentException(
          "consumer " + consumer + " has no dead letter #" + id + "; list them with deadLetters()");
    }
    if (stored.get().letter().status() != DeadLetterStatus.DEAD) {
      throw new IllegalStateException(
          "dead letter #" + id + " is " + stored.get().letter().status() + " already");
    }
    return stored.get();
  }

  private <T> T read(TransactionWork<T, SQLException> work) {
    try {
      return parts.attempts().tx(work);
    } catch (SQLException e) {
      throw new JdbcException(
          "consumer " + parts.consumer() + ": the dead letter tables failed", e);
    }
  }

  /** A dead letter applied again: there is no broker message, so nothing settles it. */
  private record Replayed(DeadLetter letter, long id) implements InboundMessage {
    @Override
    public String key() {
      return letter.aggregateId();
    }

    @Override
    public String origin() {
      return "dead letter #" + id + " (" + letter.origin() + ")";
    }

    @Override
    public Map<String, String> rawHeaders() {
      return letter.rawHeaders();
    }

    @Override
    public byte[] rawBody() {
      return letter.rawBody();
    }

    @Override
    public Event decode() {
      throw new UnsupportedOperationException("replayed from its stored envelope");
    }

    @Override
    public void acknowledge() {
      throw new UnsupportedOperationException("a replayed dead letter has no broker message");
    }
  }
}
